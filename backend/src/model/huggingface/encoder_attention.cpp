#include "model/huggingface/encoder_attention.h"

#include "model/layers/attention.h"

namespace wb::hf {

torch::Tensor encoderSelfAttention(const torch::Tensor& query, const torch::Tensor& key,
                                   const torch::Tensor& value, int64_t heads, double dropout,
                                   const torch::Tensor& keep) {
  const int64_t batch = query.size(0), tokens = query.size(1), hidden = query.size(2);
  const auto split = [&](const torch::Tensor& t) {
    return t.view({batch, tokens, heads, hidden / heads}).transpose(1, 2);
  };
  return scaledDotProductAttention(split(query), split(key), split(value), dropout, keep)
      .transpose(1, 2)
      .reshape({batch, tokens, hidden});
}

torch::Tensor paddingKeep(const torch::Tensor& attention_mask) {
  return attention_mask.to(torch::kBool).unsqueeze(1).unsqueeze(2);
}

}  // namespace wb::hf
