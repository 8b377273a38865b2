#pragma once
// What the text models read from Hugging Face folders have in common: transformers'
// *ForSequenceClassification, module for module, so that state_dict names are Hugging Face's and a folder's
// weights load key for key. A model takes token ids, the attention mask (1: a token, 0: padding) and the
// token type ids (segment A: 0, B: 1; a model without segments ignores them), each [B, L] int64, and gives
// logits [B, labels].

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

// The figures of a text model a caller checks its inputs and its tokenizer against.
struct TextModelShape {
  std::string model_type;   // config.json's: "bert", "distilbert"
  std::string base_prefix;  // the encoder's names in the classifier ("bert."), absent in a base model's file
  int64_t vocab_size = 0;   // token ids must be below it
  int64_t max_positions = 0;    // the longest input
  int64_t type_vocab_size = 0;  // segments; 0: the model has no token types (DistilBERT)
  int64_t hidden_size = 0;
  int64_t layers = 0;
  int64_t intermediate_size = 0;
  int64_t pad_token_id = 0;
  std::vector<std::string> labels;  // the classifier's outputs, in id order (config.json's id2label)
};

class TextClassifierImpl : public torch::nn::Module {
 public:
  virtual torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                const torch::Tensor& token_type_ids) = 0;
  virtual TextModelShape shape() const = 0;
};

}  // namespace wb
