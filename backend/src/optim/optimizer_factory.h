#pragma once
// LibTorch's optimizers configured from the experiment: one group per configured group (the default group,
// then optimizer.param_groups in order; parameter_groups.h), each split into the parameters that decay and,
// unless optimizer.decay_bias_and_norm is set, the biases and norm weights (1-D parameters) that do not.
// Frozen parameters (requires_grad false) are left out: no state, no weight decay.

#include <torch/torch.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(
    const OptimizerConfig& config, const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters,
    const std::map<std::string, std::string>& external_names = {});

// Thawed parameters joining the optimizer, as torch's add_param_group: every trainable parameter not in it
// yet, in groups made as makeOptimizer makes them, appended after the existing ones, with fresh state.
// Returns the number of groups added.
size_t addParameters(torch::optim::Optimizer& optimizer, const OptimizerConfig& config,
                     const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters,
                     const std::map<std::string, std::string>& external_names = {});

// Each group's learning rate: right after the optimizer is built (or groups are added), the groups' own base
// rates, which torch's schedulers keep as initial_lr.
std::vector<double> groupLearningRates(torch::optim::Optimizer& optimizer);

// Every group at `lr`.
void setLearningRate(torch::optim::Optimizer& optimizer, double lr);
// One rate per group, or one rate for all.
void setLearningRates(torch::optim::Optimizer& optimizer, const std::vector<double>& lrs);

}  // namespace wb
