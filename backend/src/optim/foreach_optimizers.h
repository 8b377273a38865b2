#pragma once
// RMSprop and Adagrad whose CUDA step is a handful of `_foreach_` ops over all their parameters (torch's
// `_multi_tensor_rmsprop` / `_multi_tensor_adagrad` arithmetic) instead of LibTorch's few kernels per
// parameter. LibTorch has no fused kernel for them that takes found_inf, and their foreach step reads host
// values (the learning rate; Adagrad's decayed rate from the step count), so they offer no DeviceStep: under
// fp16 loss scaling the scaler keeps its one host read of found_inf, as torch's GradScaler does for these.
// On the CPU they keep LibTorch's step; the state stays LibTorch's (checkpoints are the plain optimizer's).

#include <torch/torch.h>

#include "optim/step_path.h"

namespace wb {

class ForeachRMSprop final : public torch::optim::RMSprop, public ReportsStepPath {
 public:
  using torch::optim::RMSprop::RMSprop;
  torch::Tensor step(LossClosure closure = nullptr) override;
  // Foreach on CUDA (or when forced), except centered RMSprop: LibTorch's step.
  StepPath nextStepPath() const override;
  void setStepPath(StepPath path) override { m_path = path; }

 private:
  StepPath m_path = StepPath::Auto;
};

class ForeachAdagrad final : public torch::optim::Adagrad, public ReportsStepPath {
 public:
  using torch::optim::Adagrad::Adagrad;
  torch::Tensor step(LossClosure closure = nullptr) override;
  StepPath nextStepPath() const override;
  void setStepPath(StepPath path) override { m_path = path; }

 private:
  StepPath m_path = StepPath::Auto;
};

}  // namespace wb
