#pragma once
// train.amp "fp16" as a step part: torch.cuda.amp.GradScaler's use in a Python loop. The backward starts from
// loss × scale; when the gradients are complete they are unscaled (so the parts after it, clipping among
// them, see the true gradients); the optimizer steps through the scaler, which skips a step with inf/NaN
// gradients and backs the scale off, or grows it after enough clean steps.

#include "optim/grad_scaler.h"
#include "step/step_part.h"

namespace wb {

class LossScalingPart final : public StepPart {
 public:
  // Both outlive the part; the scaler is the run's (its state goes into checkpoints, its scale into metrics).
  LossScalingPart(GradScaler& scaler, torch::optim::Optimizer& optimizer);
  std::string name() const override { return "loss_scaling"; }
  // The scaler's tensors are changed in place; its one host read (found_inf, for an optimizer without a
  // device step) is in optimizerStep, which a graph records only for a device step.
  bool capturable() const override { return true; }
  torch::Tensor lossForBackward(torch::Tensor loss) override;
  void gradientsReady() override;
  bool optimizerStep(torch::optim::Optimizer& optimizer) override;

 private:
  GradScaler& m_scaler;
  torch::optim::Optimizer& m_optimizer;
};

}  // namespace wb
