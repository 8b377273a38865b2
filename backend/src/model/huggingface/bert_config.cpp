#include "model/huggingface/bert_config.h"

#include "model/huggingface/config_keys.h"
#include "workbench/errors.h"

namespace wb {

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
  c.vocab_size = hf::positiveSize(config, "vocab_size", c.vocab_size, file);
  c.hidden_size = hf::positiveSize(config, "hidden_size", c.hidden_size, file);
  c.num_hidden_layers = hf::positiveSize(config, "num_hidden_layers", c.num_hidden_layers, file);
  c.num_attention_heads = hf::positiveSize(config, "num_attention_heads", c.num_attention_heads, file);
  c.intermediate_size = hf::positiveSize(config, "intermediate_size", c.intermediate_size, file);
  c.max_position_embeddings =
      hf::positiveSize(config, "max_position_embeddings", c.max_position_embeddings, file);
  c.type_vocab_size = hf::positiveSize(config, "type_vocab_size", c.type_vocab_size, file);
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
  c.labels = hf::labelsOf(config);
  return c;
}

}  // namespace wb
