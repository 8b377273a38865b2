#pragma once
// A batch of tokenized texts as one int64 tensor [B, 3, L]: row 0 the token ids, row 1 the attention mask
// (1: a token, 0: padding), row 2 the token type ids (segment A: 0, B: 1). One tensor is what every path a
// batch takes already carries (the loader's pinned copy to the device, data parallel's and the pipeline's
// splits along the batch, CUDA graphs' static input, evaluation), so a text batch needs no second kind of
// batch there; the text data (data/) packs it and the text models (model/huggingface/) unpack it.

#include <torch/torch.h>

namespace wb {

struct TextInput {
  torch::Tensor input_ids;       // [B, L]
  torch::Tensor attention_mask;  // [B, L]
  torch::Tensor token_type_ids;  // [B, L]
};

inline torch::Tensor packTextInput(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                   const torch::Tensor& token_type_ids) {
  return torch::stack({input_ids, attention_mask, token_type_ids}, 1).to(torch::kLong);
}

// Views of `packed`; std::invalid_argument for a tensor that is not [B, 3, L] int64.
inline TextInput unpackTextInput(const torch::Tensor& packed) {
  if (packed.dim() != 3 || packed.size(1) != 3 || packed.scalar_type() != torch::kLong) {
    throw std::invalid_argument(
        "a text batch is int64 [batch, 3, tokens] (ids, attention mask, token types); got " +
        std::string(c10::toString(packed.scalar_type())) + " " + c10::str(packed.sizes()));
  }
  return {packed.select(1, 0), packed.select(1, 1), packed.select(1, 2)};
}

}  // namespace wb
