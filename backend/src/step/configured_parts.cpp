#include "step/configured_parts.h"

#include "step/clip_grad_norm_part.h"
#include "step/loss_scaling_part.h"

namespace wb {

void addConfiguredParts(StepParts& parts, const TrainConfig& train, Model& model,
                        torch::optim::Optimizer& optimizer, GradScaler& scaler) {
  if (scaler.enabled()) parts.add(std::make_shared<LossScalingPart>(scaler, optimizer));
  if (train.clip_grad_norm > 0)
    parts.add(std::make_shared<ClipGradNormPart>(model.parameters(), train.clip_grad_norm));
}

}  // namespace wb
