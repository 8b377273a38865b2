#pragma once
// Loss and accuracy of a model on a whole split, batched through views of the split (no copies on the CPU; a
// source's batches made by its workers), with the sums kept on the device and read back once.

#include <torch/torch.h>

#include "data/data_split.h"
#include "model/model.h"
#include "workbench/training_run.h"

namespace wb {

EvalResult evaluateModel(Model& model, const DataSplit& split, int64_t batch_size,
                         const torch::Device& device);
EvalResult evaluateModel(Model& model, const torch::Tensor& x, const torch::Tensor& y, int64_t batch_size,
                         const torch::Device& device);

}  // namespace wb
