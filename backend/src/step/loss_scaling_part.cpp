#include "step/loss_scaling_part.h"

namespace wb {

LossScalingPart::LossScalingPart(GradScaler& scaler, torch::optim::Optimizer& optimizer)
    : m_scaler(scaler), m_optimizer(optimizer) {}

torch::Tensor LossScalingPart::lossForBackward(torch::Tensor loss) {
  return m_scaler.scale(loss);
}

void LossScalingPart::gradientsReady() {
  m_scaler.unscale(m_optimizer);
}

bool LossScalingPart::optimizerStep(torch::optim::Optimizer& optimizer) {
  m_scaler.step(optimizer);
  m_scaler.update();
  return true;
}

}  // namespace wb
