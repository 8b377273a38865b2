#include "model/huggingface/bert_config.h"

#include "workbench/errors.h"

namespace wb {
namespace {

int64_t positive(const nlohmann::json& config, const char* key, int64_t fallback, const std::string& file) {
  const int64_t value = config.value(key, fallback);
  if (value < 1) throw UserError(file + ": " + key + " is " + std::to_string(value) + ", not a size");
  return value;
}

std::vector<std::string> labelsOf(const nlohmann::json& config) {
  std::vector<std::string> labels;
  if (config.contains("id2label") && config["id2label"].is_object()) {
    labels.resize(config["id2label"].size());
    for (const auto& [id, label] : config["id2label"].items()) {
      const size_t index = std::stoul(id);
      if (index < labels.size()) labels[index] = label.get<std::string>();
    }
  }
  if (labels.empty()) {
    labels.resize(static_cast<size_t>(config.value("num_labels", 2)));
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = "LABEL_" + std::to_string(i);
  }
  return labels;
}

}  // namespace

BertConfig readBertConfig(const nlohmann::json& config, const std::string& file) {
  const std::string type = config.value("model_type", std::string("?"));
  if (type != "bert") {
    throw UserError(file + ": model_type is '" + type + "', not 'bert'",
                    "choose the folder of a BERT model (bert-base-uncased and its fine-tuned kin)");
  }
  const std::string activation = config.value("hidden_act", std::string("gelu"));
  if (activation != "gelu") {
    throw UserError(file + ": hidden_act is '" + activation + "'; BERT's is 'gelu', the only one read here");
  }
  BertConfig c;
  c.vocab_size = positive(config, "vocab_size", c.vocab_size, file);
  c.hidden_size = positive(config, "hidden_size", c.hidden_size, file);
  c.num_hidden_layers = positive(config, "num_hidden_layers", c.num_hidden_layers, file);
  c.num_attention_heads = positive(config, "num_attention_heads", c.num_attention_heads, file);
  c.intermediate_size = positive(config, "intermediate_size", c.intermediate_size, file);
  c.max_position_embeddings = positive(config, "max_position_embeddings", c.max_position_embeddings, file);
  c.type_vocab_size = positive(config, "type_vocab_size", c.type_vocab_size, file);
  if (c.hidden_size % c.num_attention_heads != 0) {
    throw UserError(file + ": hidden_size " + std::to_string(c.hidden_size) + " is not a multiple of " +
                    "num_attention_heads " + std::to_string(c.num_attention_heads));
  }
  c.layer_norm_eps = config.value("layer_norm_eps", c.layer_norm_eps);
  c.hidden_dropout_prob = config.value("hidden_dropout_prob", c.hidden_dropout_prob);
  c.attention_probs_dropout_prob =
      config.value("attention_probs_dropout_prob", c.attention_probs_dropout_prob);
  if (config.contains("classifier_dropout") && config["classifier_dropout"].is_number()) {
    c.classifier_dropout = config["classifier_dropout"].get<double>();
  }
  if (config.contains("pad_token_id") && config["pad_token_id"].is_number_integer()) {
    c.pad_token_id = config["pad_token_id"].get<int64_t>();
  }
  c.labels = labelsOf(config);
  return c;
}

}  // namespace wb
