#pragma once
// The learning rate an experiment will use at each optimizer step, computed without training: the window
// plots it as the schedule is edited. Plain C++.

#include <cstdint>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

struct LrCurve {
  int64_t steps_per_epoch = 0;
  int64_t total_steps = 0;
  std::vector<int64_t> steps;  // optimizer steps done (0 = the first step), increasing
  std::vector<double> lr;      // the learning rate for the step after steps[i]
};

// train_samples: the size of the training split (after data.limit and the validation split). At most
// max_points points, evenly spread, always including the warmup's end and the last step. The plateau schedule
// reacts to validation, which a preview cannot know: it is drawn as if the metric kept improving.
LrCurve learningRateCurve(const Experiment& experiment, int64_t train_samples, int64_t max_points = 2000);

// The same, with the training split's size read from the dataset's headers (no data loaded). Throws
// wb::DataError / wb::UserError when the data cannot be probed.
LrCurve learningRateCurve(const Experiment& experiment);

}  // namespace wb
