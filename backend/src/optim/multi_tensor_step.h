#pragma once
// One optimizer update over lists of tensors, the arithmetic of torch.optim's multi-tensor steps: LibTorch's
// fused kernels (`_fused_adam_`, `_fused_adamw_`, `_fused_sgd_`: one launch or a few for every parameter of a
// device and dtype) and `_foreach_` ops (a handful of launches per list, where LibTorch's own step launches
// about nine kernels per parameter). The optimizers (fused_adam.h, fused_sgd.h, foreach_optimizers.h) choose
// the lists and own the state; these functions only compute, so tests can run them on CPU tensors against
// LibTorch's per-parameter step.
//
// The foreach updates take host values (learning rate, step counts): they are torch's non-capturable
// `_multi_tensor_*` steps, done in the same tensor operations as LibTorch's single-tensor step, so on the CPU
// they give the same bits. The fused ones read the learning rate, the step counts and the loss scaler's
// grad_scale / found_inf from device tensors: nothing is read back to the host and a CUDA graph can capture
// them.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "torch_compat.h"

// The learning rate as a tensor (`tensor_lr` overloads) came to _fused_adam_/_fused_adamw_ in 2.2 (pytorch
// #106916), _fused_sgd_ itself in 2.3; their CPU kernels in 2.4. LibTorch 1.13 has none of them.
#define WB_HAS_FUSED_ADAM WB_TORCH_AT_LEAST(2, 2)
#define WB_HAS_FUSED_SGD WB_TORCH_AT_LEAST(2, 3)
#define WB_HAS_FUSED_CPU_KERNELS WB_TORCH_AT_LEAST(2, 4)

namespace wb {

struct AdamHyper {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
  bool decoupled = false;  // AdamW: the weights shrink by lr * weight_decay; Adam: L2 added to the gradient
};

struct SgdHyper {
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
};

struct RmspropHyper {
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum = 0;  // centered RMSprop is not covered: its optimizer keeps LibTorch's step
};

struct AdagradHyper {
  double lr_decay = 0;
  double eps = 1e-10;
  double weight_decay = 0;
};

// `steps`: each parameter's step count, already counting this step.
void foreachAdamStep(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                     at::TensorList exp_avg_sqs, const std::vector<int64_t>& steps, double lr,
                     const AdamHyper& hyper);

// `momentum_buffers`: one per parameter when hyper.momentum != 0; an undefined entry is a first step (the
// buffer becomes a copy of the gradient, as in LibTorch's step) and is filled in.
void foreachSgdStep(at::TensorList params, at::TensorList grads, std::vector<torch::Tensor>& momentum_buffers,
                    double lr, const SgdHyper& hyper);

// `momentum_buffers`: one per parameter when hyper.momentum > 0, else empty.
void foreachRmspropStep(at::TensorList params, at::TensorList grads, at::TensorList square_avgs,
                        at::TensorList momentum_buffers, double lr, const RmspropHyper& hyper);

void foreachAdagradStep(at::TensorList params, at::TensorList grads, at::TensorList sums,
                        const std::vector<int64_t>& steps, double lr, const AdagradHyper& hyper);

#if WB_HAS_FUSED_ADAM
// torch.optim's `_fused_adam`: the step counts (float32 tensors on the parameters' device) count this step
// first, the kernel skips everything where found_inf is nonzero, and the counts are taken back then.
// `lr`: a float32 tensor on the parameters' device. grad_scale / found_inf: undefined for none.
void fusedAdamStep(at::TensorList params, at::TensorList grads, at::TensorList exp_avgs,
                   at::TensorList exp_avg_sqs, at::TensorList steps, const torch::Tensor& lr,
                   const AdamHyper& hyper, const torch::Tensor& grad_scale, const torch::Tensor& found_inf);
#endif

#if WB_HAS_FUSED_SGD
// torch.optim's `_fused_sgd`. `momentum_buffers`: empty when hyper.momentum == 0. `is_first_step`: the
// kernel copies the gradient into the buffers instead of reading them.
void fusedSgdStep(at::TensorList params, at::TensorList grads, at::TensorList momentum_buffers,
                  const torch::Tensor& lr, const SgdHyper& hyper, bool is_first_step,
                  const torch::Tensor& grad_scale, const torch::Tensor& found_inf);
#endif

}  // namespace wb
