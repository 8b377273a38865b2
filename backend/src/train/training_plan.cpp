#include "train/training_plan.h"

namespace wb {

TrainingPlan planTraining(const TrainConfig& train, int64_t train_samples) {
  TrainingPlan plan;
  const int64_t batch = std::max<int64_t>(1, train.batch_size);
  const int64_t accum = std::max<int64_t>(1, train.grad_accum);
  plan.batches_per_epoch = (train_samples + batch - 1) / batch;
  plan.steps_per_epoch = (plan.batches_per_epoch + accum - 1) / accum;
  if (plan.steps_per_epoch == 0) return plan;
  if (train.epochs > 0) {
    plan.epochs = train.epochs;
    plan.total_steps = train.epochs * plan.steps_per_epoch;
    if (train.max_steps > 0 && train.max_steps < plan.total_steps) plan.total_steps = train.max_steps;
  } else {
    plan.total_steps = train.max_steps;
  }
  plan.epochs = (plan.total_steps + plan.steps_per_epoch - 1) / plan.steps_per_epoch;
  return plan;
}

}  // namespace wb
