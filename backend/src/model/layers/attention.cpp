#include "model/layers/attention.h"

#include <cmath>
#include <limits>
#include <memory>

#include "model/layer_net_model.h"
#include "model/layers/step_dropout.h"
#include "model/layers/transformer_layers.h"
#include "model/step_generator.h"
#include "torch_compat.h"
#include "util/default_cpu_generator.h"

namespace wb {

torch::Tensor attentionInPlainOps(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                  double dropoutP, torch::Generator* generator, const torch::Tensor& keep) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(-1)));
  torch::Tensor scores = torch::matmul(q * scale, k.transpose(-2, -1));
  if (keep.defined())
    scores = scores.masked_fill(keep.logical_not(), -std::numeric_limits<double>::infinity());
  torch::Tensor weights = torch::softmax(scores, -1);
  if (dropoutP > 0) {
    if (generator != nullptr) {
      weights = dropoutWithGenerator(weights, dropoutP, *generator);
    } else {
      const auto turn = holdDefaultGenerator(weights.device());
      weights = torch::dropout(weights, dropoutP, /*train=*/true);
    }
  }
  return torch::matmul(weights, v);
}

// 1.13 has a private prototype, at::_scaled_dot_product_attention(q, k, v, mask, p, need_attn_weights,
// is_causal): with gradients it runs _scaled_dot_product_attention_math, the same plain ops as ours, and
// Debian's 1.13 has no CUDA for its fused forward. Calling it would buy nothing, could not take the step
// generator, and would tie us to a signature that 2.0 replaced.
torch::Tensor scaledDotProductAttention(const torch::Tensor& q, const torch::Tensor& k,
                                        const torch::Tensor& v, double dropoutP, const torch::Tensor& keep) {
  torch::Generator* generator = dropoutP > 0 && q.device().is_cpu() ? stepGenerator() : nullptr;
#if WB_TORCH_AT_LEAST(2, 0)
  // SDPA takes no generator: where a rank's step generator must draw the mask, the plain ops do.
  if (generator == nullptr) {
    const auto turn =
        dropoutP > 0 ? holdDefaultGenerator(q.device()) : std::unique_lock<std::recursive_mutex>();
    return at::scaled_dot_product_attention(
        q, k, v, /*attn_mask=*/keep.defined() ? std::optional<at::Tensor>(keep) : std::nullopt, dropoutP);
  }
#endif
  return attentionInPlainOps(q, k, v, dropoutP, generator, keep);
}

std::string attentionKernel(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                            double dropoutP) {
#if WB_TORCH_AT_LEAST(2, 0)
  if (dropoutP > 0 && q.device().is_cpu() && stepGenerator() != nullptr) return "math, rank's step generator";
  // The values of at::SDPBackend (ATen/SDPBackend.h in 2.x).
  const int64_t choice = at::_fused_sdp_choice(q, k, v, /*attn_mask=*/{}, dropoutP);
  switch (choice) {
    case 0:
      return "math";
    case 1:
      return "flash";
    case 2:
      return "memory-efficient";
    case 3:
      return "cuDNN";
    default:
      return "backend " + std::to_string(choice);
  }
#else
  (void)q, (void)k, (void)v, (void)dropoutP;
  return "math, LibTorch 1.13";
#endif
}

std::optional<std::string> describeAttention(Model& model, const torch::Device& device,
                                             torch::ScalarType dtype) {
  auto* layerNet = dynamic_cast<LayerNetModel*>(&model);
  if (layerNet == nullptr) return std::nullopt;
  for (const auto& module : layerNet->net()->modules(/*include_self=*/false)) {
    const auto block = std::dynamic_pointer_cast<EncoderBlockImpl>(module);
    if (!block) continue;
    const torch::Tensor probe =
        torch::empty({1, block->heads(), block->tokens(), block->dim() / block->heads()},
                     torch::TensorOptions().device(device).dtype(dtype).requires_grad(true));
    const std::string kernel = attentionKernel(probe, probe, probe, block->attentionDropout());
#if WB_TORCH_AT_LEAST(2, 0)
    return "attention: scaled_dot_product_attention (" + kernel + ")";
#else
    return "attention: softmax(q·kᵀ/√d)·v in plain ops (" + kernel + ")";
#endif
  }
  return std::nullopt;
}

}  // namespace wb
