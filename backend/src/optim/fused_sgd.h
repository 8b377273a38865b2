#pragma once
// SGD (momentum, Nesterov, weight decay) whose CUDA step is LibTorch's fused multi-tensor kernel
// (`_fused_sgd_`, 2.3 on) with the learning rate in a device tensor and the loss scaler's grad_scale /
// found_inf inside the kernel (DeviceStep), or `_foreach_` ops where this LibTorch has no such kernel (1.13).
// On the CPU it keeps LibTorch's step. The state stays LibTorch's SGDParamState (momentum_buffer):
// checkpoints are the plain optimizer's.

#include <torch/torch.h>

#include <vector>

#include "optim/device_step.h"
#include "optim/step_path.h"

namespace wb {

class FusedSGD final : public torch::optim::SGD, public DeviceStep, public ReportsStepPath {
 public:
  using torch::optim::SGD::SGD;

  torch::Tensor step(LossClosure closure = nullptr) override;

  // True on the fused path: CUDA parameters on LibTorch >= 2.3 (false on 1.13), or any device when a test
  // forces StepPath::Fused.
  bool stepsOnDevice() const override { return nextStepPath() == StepPath::Fused; }
  bool capturable() const override { return stepsOnDevice(); }
  void stageLearningRates() override;
  void stepScaled(const torch::Tensor& grad_scale, const torch::Tensor& found_inf) override;
  std::vector<torch::Tensor> graphTensors() const override;

  StepPath nextStepPath() const override;
  void setStepPath(StepPath path) override { m_path = path; }

 private:
  void foreachStep();

  StepPath m_path = StepPath::Auto;
  StagedLearningRates m_lrs;
};

}  // namespace wb
