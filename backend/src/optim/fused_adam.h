#pragma once
// Adam and AdamW whose step, for dense float32 parameters on the CPU, is one pass over each parameter's
// weights, gradient and two moments, split across the intra-op threads. LibTorch's own step is nine tensor
// ops per parameter (each a sweep over memory, two of them allocating a temporary); for a small model at a
// small batch that was a third of the step. What stays LibTorch's: the options, the per-parameter state
// (step, exp_avg, exp_avg_sq), save/load — a checkpoint moves freely between the fused and the plain
// optimizer — and the arithmetic, done in the same float32 operations in the same order as torch.optim's
// single-tensor step. Whatever the fused pass does not cover (CUDA, other dtypes, sparse gradients, tensors
// whose gradient or state is laid out differently, amsgrad) takes LibTorch's step.

#include <torch/torch.h>

namespace wb {

class FusedAdamW final : public torch::optim::AdamW {
 public:
  using torch::optim::AdamW::AdamW;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

class FusedAdam final : public torch::optim::Adam {
 public:
  using torch::optim::Adam::Adam;
  torch::Tensor step(LossClosure closure = nullptr) override;
};

// Whether the fused pass takes every parameter of `optimizer` that has a gradient (false for other optimizer
// types): what the run log reports.
bool takesFusedStep(const torch::optim::Optimizer& optimizer);

}  // namespace wb
