#pragma once
// An encoder's self-attention as BERT and DistilBERT compute it, after their query, key and value
// projections: split into heads, scaled_dot_product_attention (scale 1/sqrt(head size)) with the padding
// mask, heads merged back.

#include <torch/torch.h>

#include <cstdint>

namespace wb::hf {

// query, key, value: [B, L, hidden] -> [B, L, hidden]. `keep`: [B, 1, 1, L] bool, false for padding keys.
torch::Tensor encoderSelfAttention(const torch::Tensor& query, const torch::Tensor& key,
                                   const torch::Tensor& value, int64_t heads, double dropout,
                                   const torch::Tensor& keep);

// [B, L] attention mask (1: a token, 0: padding) -> the [B, 1, 1, L] bool mask every query shares.
torch::Tensor paddingKeep(const torch::Tensor& attention_mask);

}  // namespace wb::hf
