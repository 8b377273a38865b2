#pragma once
// A model measured on a whole split with its task (task/task.h): the summed loss and the task's sums, batched
// through views of the split (no copies on the CPU; a source's batches made by its workers), kept on the
// device and read back once.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "data/data_split.h"
#include "model/model.h"
#include "task/task.h"
#include "workbench/training_run.h"

namespace wb {

// What a split (or a rank's share of it) adds up to: sums that ranks add across each other before dividing.
struct SplitMeasure {
  int64_t samples = 0;
  double loss_sum = 0;
  std::vector<double> figure_sums;  // Task::sumNames's order
};

// In eval mode, without gradients.
SplitMeasure measureSplit(Model& model, const DataSplit& split, int64_t batch_size,
                          const torch::Device& device, const Task& task);

// The mean loss and the task's figures of a measure (accuracy: the figure called "accuracy", 0 when the task
// has none). No samples: zeros.
EvalResult evalResult(const SplitMeasure& measure, const Task& task);

// measureSplit and evalResult.
EvalResult evaluateModel(Model& model, const DataSplit& split, int64_t batch_size,
                         const torch::Device& device, const Task& task);

}  // namespace wb
