#pragma once
// transformers' DistilBertForSequenceClassification in LibTorch, module for module ("distilbert.transformer.
// layer.0.attention.q_lin.weight"): word and learned position embeddings with a LayerNorm (no token types),
// the transformer blocks (self-attention through scaled_dot_product_attention with the padding mask, a
// residual LayerNorm, the feed-forward, another), then the first token through pre_classifier, ReLU and the
// classifier.

#include <torch/torch.h>

#include <vector>

#include "model/huggingface/distilbert_config.h"
#include "model/huggingface/text_classifier.h"

namespace wb {

class DistilBertClassifierImpl : public TextClassifierImpl {
 public:
  explicit DistilBertClassifierImpl(const DistilBertConfig& config);

  // token_type_ids are ignored: DistilBERT has no segments.
  torch::Tensor forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                        const torch::Tensor& token_type_ids) override;
  TextModelShape shape() const override;

 private:
  struct Block {
    torch::nn::Linear q{nullptr}, k{nullptr}, v{nullptr}, out{nullptr};
    torch::nn::LayerNorm attention_norm{nullptr};
    torch::nn::Linear lin1{nullptr}, lin2{nullptr};
    torch::nn::LayerNorm output_norm{nullptr};
  };

  torch::Tensor block(Block& b, const torch::Tensor& x, const torch::Tensor& keep);

  DistilBertConfig m_config;
  torch::nn::Embedding m_words{nullptr}, m_positions{nullptr};
  torch::nn::LayerNorm m_embedding_norm{nullptr};
  std::vector<Block> m_blocks;
  torch::nn::Linear m_pre_classifier{nullptr}, m_classifier{nullptr};
};

}  // namespace wb
