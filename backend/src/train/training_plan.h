#pragma once
// How many optimizer steps a run takes: from the epochs, the batch size, gradient accumulation and
// max_steps. The schedule, the ETA and the progress bar all read it.

#include <cstdint>

#include "workbench/experiment.h"

namespace wb {

struct TrainingPlan {
  int64_t batches_per_epoch = 0;
  int64_t steps_per_epoch = 0;  // optimizer steps: ceil(batches / grad_accum)
  int64_t epochs = 0;           // epochs that will start (the last may be cut short by max_steps)
  int64_t total_steps = 0;
};

TrainingPlan planTraining(const TrainConfig& train, int64_t train_samples);

}  // namespace wb
