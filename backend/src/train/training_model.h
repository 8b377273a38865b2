#pragma once
// A model and its optimizer as a run builds them for one device, written once for every rank of a run, the
// finders and the benchmark: the seed set right before the model (so they all start from the run's weights),
// batch norm synchronized over a data-parallel group when asked, moved to the device, in channels_last when
// train.channels_last applies to the data, model.freeze applied, and the optimizer over its trainable named
// parameters in optimizer.param_groups's groups.

#include <torch/torch.h>

#include <memory>

#include "data/dataset.h"
#include "distributed/rank_group.h"
#include "model/model.h"
#include "train/frozen_parameters.h"
#include "workbench/experiment.h"

namespace wb {

struct TrainingModel {
  std::unique_ptr<Model> model;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::shared_ptr<FrozenParameters> frozen;  // model.freeze; null when nothing is frozen
};

// `sync_batchnorm_group`: the rank's group when train.sync_batchnorm applies (data parallel), else null.
TrainingModel buildTrainingModel(const Experiment& experiment, const Dataset& data, torch::Device device,
                                 RankGroup* sync_batchnorm_group = nullptr);

}  // namespace wb
