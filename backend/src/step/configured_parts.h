#pragma once
// The parts the experiment's train.* keys ask of every step, appended after the caller's own (allreduce,
// masks, ...): fp16 loss scaling (train.amp "fp16"; it unscales the gradients), then clipping
// (train.clip_grad_norm; it measures what the optimizer will see). The run's ranks, the finders and the
// benchmark all build their steps with this, so the three cannot drift apart.

#include "model/model.h"
#include "optim/grad_scaler.h"
#include "step/step_parts.h"
#include "workbench/experiment.h"

namespace wb {

// `scaler`: enabled only for fp16 (its options); it, the model and the optimizer outlive the parts.
void addConfiguredParts(StepParts& parts, const TrainConfig& train, Model& model,
                        torch::optim::Optimizer& optimizer, GradScaler& scaler);

}  // namespace wb
