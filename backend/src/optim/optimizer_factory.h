#pragma once
// LibTorch's optimizers configured from the experiment, with biases and norm weights (1-D parameters) in a
// group without weight decay unless optimizer.decay_bias_and_norm is set.

#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(
    const OptimizerConfig& config,
    const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters);

void setLearningRate(torch::optim::Optimizer& optimizer, double lr);

}  // namespace wb
