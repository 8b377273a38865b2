#pragma once
// A BERT's shape as Hugging Face writes it in a model folder's config.json (transformers' BertConfig): sizes,
// activation, dropout, layer norm's epsilon, the labels of its classifier.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace wb {

struct BertConfig {
  int64_t vocab_size = 30522;
  int64_t hidden_size = 768;
  int64_t num_hidden_layers = 12;
  int64_t num_attention_heads = 12;
  int64_t intermediate_size = 3072;
  int64_t max_position_embeddings = 512;
  int64_t type_vocab_size = 2;
  double layer_norm_eps = 1e-12;
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  std::optional<double> classifier_dropout;  // unset: hidden_dropout_prob, as transformers
  int64_t pad_token_id = 0;
  std::vector<std::string> labels;  // id2label in id order; its size is the classifier's outputs
};

// UserError naming `file` and the key for a config of another model_type, an activation other than BERT's
// "gelu", or sizes that do not fit (hidden_size not a multiple of the heads, a size below 1).
BertConfig readBertConfig(const nlohmann::json& config, const std::string& file);

}  // namespace wb
