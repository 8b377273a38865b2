#include "model/huggingface/distilbert_config.h"

#include "model/huggingface/config_keys.h"
#include "workbench/errors.h"

namespace wb {

DistilBertConfig readDistilBertConfig(const nlohmann::json& config, const std::string& file) {
  const std::string type = config.value("model_type", std::string("?"));
  if (type != "distilbert") {
    throw UserError(file + ": model_type is '" + type + "', not 'distilbert'");
  }
  DistilBertConfig c;
  const std::string activation = config.value("activation", std::string("gelu"));
  if (activation == "relu") {
    c.activation = DistilBertActivation::Relu;
  } else if (activation != "gelu") {
    throw UserError(file + ": activation is '" + activation + "'; DistilBERT's are 'gelu' and 'relu'");
  }
  if (config.value("sinusoidal_pos_embds", false)) {
    throw UserError(file + ": sinusoidal_pos_embds is true: fixed sinusoidal positions are not read here",
                    "DistilBERT's released models learn their positions (sinusoidal_pos_embds false)");
  }
  c.vocab_size = hf::positiveSize(config, "vocab_size", c.vocab_size, file);
  c.dim = hf::positiveSize(config, "dim", c.dim, file);
  c.n_layers = hf::positiveSize(config, "n_layers", c.n_layers, file);
  c.n_heads = hf::positiveSize(config, "n_heads", c.n_heads, file);
  c.hidden_dim = hf::positiveSize(config, "hidden_dim", c.hidden_dim, file);
  c.max_position_embeddings =
      hf::positiveSize(config, "max_position_embeddings", c.max_position_embeddings, file);
  if (c.dim % c.n_heads != 0) {
    throw UserError(file + ": dim " + std::to_string(c.dim) + " is not a multiple of n_heads " +
                    std::to_string(c.n_heads));
  }
  c.dropout = config.value("dropout", c.dropout);
  c.attention_dropout = config.value("attention_dropout", c.attention_dropout);
  c.seq_classif_dropout = config.value("seq_classif_dropout", c.seq_classif_dropout);
  if (config.contains("pad_token_id") && config["pad_token_id"].is_number_integer()) {
    c.pad_token_id = config["pad_token_id"].get<int64_t>();
  }
  c.labels = hf::labelsOf(config);
  return c;
}

}  // namespace wb
