#pragma once
// transformers' BertForSequenceClassification in LibTorch, module for module, so that its state_dict names
// are Hugging Face's ("bert.encoder.layer.0.attention.self.query.weight") and a model folder's weights load
// key for key: embeddings (word, position, token type, LayerNorm), the encoder layers (self-attention through
// scaled_dot_product_attention with the padding mask, then the feed-forward with exact GELU, each followed by
// a residual LayerNorm), the pooler (the first token, dense, tanh) and the classifier.

#include <torch/torch.h>

#include <vector>

#include "model/huggingface/bert_config.h"
#include "model/huggingface/text_classifier.h"

namespace wb {

class BertClassifierImpl : public TextClassifierImpl {
 public:
  explicit BertClassifierImpl(const BertConfig& config);

  // input_ids, attention_mask (1: a token, 0: padding), token_type_ids: [B, L] int64 -> logits [B, labels].
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                        const torch::Tensor& token_type_ids) override;
  TextModelShape shape() const override;

  const BertConfig& config() const { return m_config; }

 private:
  struct Layer {
    torch::nn::Linear query{nullptr}, key{nullptr}, value{nullptr}, attention_out{nullptr};
    torch::nn::LayerNorm attention_norm{nullptr};
    torch::nn::Linear intermediate{nullptr}, output{nullptr};
    torch::nn::LayerNorm output_norm{nullptr};
  };

  torch::Tensor embed(const torch::Tensor& input_ids, const torch::Tensor& token_type_ids);
  torch::Tensor encodeLayer(Layer& layer, const torch::Tensor& x, const torch::Tensor& keep);

  BertConfig m_config;
  torch::nn::Embedding m_words{nullptr}, m_positions{nullptr}, m_token_types{nullptr};
  torch::nn::LayerNorm m_embedding_norm{nullptr};
  std::vector<Layer> m_layers;
  torch::nn::Linear m_pooler{nullptr}, m_classifier{nullptr};
};
TORCH_MODULE(BertClassifier);

}  // namespace wb
