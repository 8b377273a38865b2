#pragma once
// A DistilBERT's shape as Hugging Face writes it in a model folder's config.json (transformers'
// DistilBertConfig: dim, n_layers, n_heads, hidden_dim, ...), and the labels of its classifier.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace wb {

// DistilBERT's activation ("activation" in config.json).
enum class DistilBertActivation { Gelu, Relu };

struct DistilBertConfig {
  int64_t vocab_size = 30522;
  int64_t dim = 768;
  int64_t n_layers = 6;
  int64_t n_heads = 12;
  int64_t hidden_dim = 3072;
  int64_t max_position_embeddings = 512;
  double dropout = 0.1;
  double attention_dropout = 0.1;
  double seq_classif_dropout = 0.2;
  DistilBertActivation activation = DistilBertActivation::Gelu;
  int64_t pad_token_id = 0;
  std::vector<std::string> labels;  // id2label in id order; its size is the classifier's outputs
};

// UserError naming `file` and the key for a config of another model_type, an activation other than gelu or
// relu, sinusoidal position embeddings (fixed, not trained: not read here), or sizes that do not fit.
DistilBertConfig readDistilBertConfig(const nlohmann::json& config, const std::string& file);

}  // namespace wb
