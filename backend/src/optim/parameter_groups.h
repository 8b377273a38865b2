#pragma once
// optimizer.param_groups: which of the configured groups each parameter is in. Group 0 is the default group
// (optimizer.lr and weight_decay, every parameter no pattern picks); group i is param_groups[i - 1]. A
// pattern that picks nothing, or a parameter two groups pick, is an error naming them.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

// Per parameter of `names` (ours, in order), its group. Throws wb::UserError.
std::vector<size_t> assignParameterGroups(const std::vector<ParamGroupConfig>& groups,
                                          const std::vector<std::string>& names,
                                          const std::map<std::string, std::string>& external_names);

// A configured group's learning rate and weight decay (group 0: the optimizer's own).
double groupLr(const OptimizerConfig& config, size_t group);
double groupWeightDecay(const OptimizerConfig& config, size_t group);

// For the run log: "Parameter groups: default (58 tensors, lr 0.0001, weight decay 0.01); layer4.*, fc.* (6
// tensors, lr 0.001, weight decay 0)"; the tensors counted are the ones that train now.
std::string describeParameterGroups(const OptimizerConfig& config, const std::vector<std::string>& names,
                                    const std::map<std::string, std::string>& external_names,
                                    const std::vector<bool>& trainable);

}  // namespace wb
