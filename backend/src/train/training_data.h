#pragma once
// The data a training trains on, loaded one way for a run, the finders and the benchmark: the seed set first
// (the run's order is the seed, the data, then the seed again right before the model, training_model.h), the
// dataset, and on CUDA the training split moved onto the device when train.data_on_device lets it, so that
// batches are gathered there without a host copy.

#include <torch/torch.h>

#include <optional>

#include "data/dataset.h"
#include "util/fast_paths.h"
#include "workbench/experiment.h"

namespace wb {

struct TrainingData {
  Dataset data;
  std::optional<DataPlacement> placement;  // chosen for a CUDA device and a split held in memory
};

// `may_place_on_device`: false with several ranks (each takes its batches to its own device).
TrainingData loadTrainingData(const Experiment& experiment, torch::Device device, bool may_place_on_device);

}  // namespace wb
