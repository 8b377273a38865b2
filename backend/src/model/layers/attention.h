#pragma once
// The core of multi-head self-attention, softmax(q·kᵀ/√d)·v with dropout on the weights: through LibTorch's
// scaled_dot_product_attention where it has a public one (2.0+: flash, memory-efficient or cuDNN kernels on
// CUDA, a fused kernel on the CPU), in plain ops on 1.13; and the run log's line naming which one runs.

#include <torch/torch.h>

#include <optional>
#include <string>

namespace wb {

class Model;

// q, k, v: [B, heads, N, head_dim] -> [B, heads, N, head_dim]. `dropoutP` drops attention weights: pass the
// block's dropout in training mode and 0 in eval. On a CPU input with this thread's step generator set
// (model/step_generator.h) and dropoutP > 0 the mask comes from that generator, through the plain ops, as
// the layer list's other dropouts do; otherwise it comes from torch's generators (SDPA on CUDA draws from
// the device's default generator, which seedStepGenerator seeds).
// `keep` (bool, broadcastable to [B, heads, N, N], e.g. [B, 1, 1, N] from a padding mask): the keys a query
// may attend to; undefined: all of them.
torch::Tensor scaledDotProductAttention(const torch::Tensor& q, const torch::Tensor& k,
                                        const torch::Tensor& v, double dropoutP,
                                        const torch::Tensor& keep = {});

// The same in plain ops, in torch::nn::MultiheadAttention's order: q scaled by 1/√head_dim, q·kᵀ, softmax,
// dropout (from `generator` when one is given), ·v. The 1.13 path and the reference the tests compare with.
torch::Tensor attentionInPlainOps(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                  double dropoutP, torch::Generator* generator = nullptr,
                                  const torch::Tensor& keep = {});

// Which kernel scaledDotProductAttention takes for inputs like these: "flash", "memory-efficient", "cuDNN",
// "math" (2.x: at::_fused_sdp_choice's answer), or "math, LibTorch 1.13".
std::string attentionKernel(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                            double dropoutP);

// The run log's line for a model with encoder blocks ("attention: scaled_dot_product_attention (flash)"),
// std::nullopt for one without. The kernel is asked for the first block's training-mode shapes on `device`
// in `dtype` (the autocast dtype under mixed precision, else float). Call it after the model is built.
std::optional<std::string> describeAttention(Model& model, const torch::Device& device,
                                             torch::ScalarType dtype);

}  // namespace wb
