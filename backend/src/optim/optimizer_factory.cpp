#include "optim/optimizer_factory.h"

#include <set>
#include <stdexcept>
#include <tuple>

#include "optim/foreach_optimizers.h"
#include "optim/fused_adam.h"
#include "optim/fused_sgd.h"
#include "optim/parameter_groups.h"
#include "workbench/errors.h"

namespace wb {

namespace {

// One group of the optimizer: the parameters of one configured group (parameter_groups.h) that decay, or
// those that do not.
struct GroupPlan {
  size_t group = 0;
  bool decayed = true;
  std::vector<torch::Tensor> params;
};

// The optimizer's groups for the trainable parameters not in `present`, in the configured groups' order,
// each split in two: decayed first, undecayed second (empty ones left out). The rule for "biases and norm
// weights": every parameter of at most one dimension. It needs no knowledge of the layer a parameter came
// from, so it holds for presets, layer lists and TorchScript models alike (it also exempts learnable
// scalars, which weight decay would only pull towards zero).
std::vector<GroupPlan> planGroups(const OptimizerConfig& config,
                                  const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters,
                                  const std::map<std::string, std::string>& external_names,
                                  const std::set<const void*>& present) {
  std::vector<std::string> names;
  for (const auto& named : named_parameters) names.push_back(named.first);
  const std::vector<size_t> assigned = assignParameterGroups(config.param_groups, names, external_names);
  std::vector<GroupPlan> plans;
  for (size_t g = 0; g <= config.param_groups.size(); ++g) {
    GroupPlan decayed{g, true, {}};
    GroupPlan not_decayed{g, false, {}};
    for (size_t i = 0; i < named_parameters.size(); ++i) {
      const torch::Tensor& parameter = named_parameters[i].second;
      // frozen: the optimizer must not touch it (weight decay would still move it), nor keep state for it
      if (assigned[i] != g || !parameter.requires_grad() || present.count(parameter.unsafeGetTensorImpl())) {
        continue;
      }
      (!config.decay_bias_and_norm && parameter.dim() <= 1 ? not_decayed : decayed)
          .params.push_back(parameter);
    }
    if (!decayed.params.empty()) plans.push_back(std::move(decayed));
    if (!not_decayed.params.empty()) plans.push_back(std::move(not_decayed));
  }
  return plans;
}

template <typename OptionsType>
void setGroupOptions(torch::optim::OptimizerOptions& options, double lr, double weight_decay) {
  auto& typed = static_cast<OptionsType&>(options);
  typed.lr(lr);
  typed.weight_decay(weight_decay);
}

// A group's learning rate and weight decay, set on its options after the group is in the optimizer rather
// than by giving it options of its own: from 2.x on, LibTorch merges a group's options with the defaults
// and treats a field equal to the options' constructor default (weight_decay 0 for most of them) as "not
// set", which would hand an undecayed group the optimizer's weight decay.
void configureGroup(torch::optim::OptimizerParamGroup& group, const OptimizerConfig& config,
                    const GroupPlan& plan) {
  const double lr = groupLr(config, plan.group);
  const double weight_decay = plan.decayed ? groupWeightDecay(config, plan.group) : 0.0;
  switch (config.name) {
    case OptimizerName::Sgd:
      return setGroupOptions<torch::optim::SGDOptions>(group.options(), lr, weight_decay);
    case OptimizerName::Adam:
      return setGroupOptions<torch::optim::AdamOptions>(group.options(), lr, weight_decay);
    case OptimizerName::AdamW:
      return setGroupOptions<torch::optim::AdamWOptions>(group.options(), lr, weight_decay);
    case OptimizerName::RmsProp:
      return setGroupOptions<torch::optim::RMSpropOptions>(group.options(), lr, weight_decay);
    case OptimizerName::Adagrad:
      return setGroupOptions<torch::optim::AdagradOptions>(group.options(), lr, weight_decay);
  }
}

template <typename OptimizerType, typename OptionsType>
std::unique_ptr<torch::optim::Optimizer> buildOptimizer(const OptimizerConfig& config,
                                                        const std::vector<GroupPlan>& plans,
                                                        const OptionsType& options) {
  std::vector<torch::optim::OptimizerParamGroup> param_groups;
  for (const GroupPlan& plan : plans) param_groups.emplace_back(plan.params);
  auto optimizer = std::make_unique<OptimizerType>(param_groups, options);
  for (size_t i = 0; i < plans.size(); ++i) configureGroup(optimizer->param_groups()[i], config, plans[i]);
  return optimizer;
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(
    const OptimizerConfig& config, const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters,
    const std::map<std::string, std::string>& external_names) {
  const std::vector<GroupPlan> groups = planGroups(config, named_parameters, external_names, {});
  if (groups.empty()) {
    throw UserError("the model has no trainable parameters", "unfreeze at least one layer");
  }
  switch (config.name) {
    case OptimizerName::Sgd: {
      // Nesterov without momentum is rejected by LibTorch itself (a c10::Error), as torch.optim.SGD does.
      const auto options = torch::optim::SGDOptions(config.lr)
                               .momentum(config.momentum)
                               .dampening(0.0)
                               .weight_decay(config.weight_decay)
                               .nesterov(config.nesterov);
      return config.fused ? buildOptimizer<FusedSGD>(config, groups, options)
                          : buildOptimizer<torch::optim::SGD>(config, groups, options);
    }
    case OptimizerName::Adam: {
      // weight_decay is L2: added to the gradient, as torch.optim.Adam does (adamw decouples it).
      const auto options = torch::optim::AdamOptions(config.lr)
                               .betas(std::make_tuple(config.beta1, config.beta2))
                               .eps(config.eps)
                               .weight_decay(config.weight_decay)
                               .amsgrad(false);
      return config.fused ? buildOptimizer<FusedAdam>(config, groups, options)
                          : buildOptimizer<torch::optim::Adam>(config, groups, options);
    }
    case OptimizerName::AdamW: {
      const auto options = torch::optim::AdamWOptions(config.lr)
                               .betas(std::make_tuple(config.beta1, config.beta2))
                               .eps(config.eps)
                               .weight_decay(config.weight_decay)
                               .amsgrad(false);
      return config.fused ? buildOptimizer<FusedAdamW>(config, groups, options)
                          : buildOptimizer<torch::optim::AdamW>(config, groups, options);
    }
    case OptimizerName::RmsProp: {
      const auto options = torch::optim::RMSpropOptions(config.lr)
                               .alpha(config.alpha)
                               .eps(config.eps)
                               .weight_decay(config.weight_decay)
                               .momentum(config.momentum)
                               .centered(false);
      return config.fused ? buildOptimizer<ForeachRMSprop>(config, groups, options)
                          : buildOptimizer<torch::optim::RMSprop>(config, groups, options);
    }
    case OptimizerName::Adagrad: {
      // eps is taken as configured. Its default (1e-8) is Adam's; torch's Adagrad defaults to 1e-10, which a
      // user who wants torch's exact default sets as optimizer.eps.
      const auto options = torch::optim::AdagradOptions(config.lr)
                               .lr_decay(0.0)
                               .weight_decay(config.weight_decay)
                               .initial_accumulator_value(0.0)
                               .eps(config.eps);
      return config.fused ? buildOptimizer<ForeachAdagrad>(config, groups, options)
                          : buildOptimizer<torch::optim::Adagrad>(config, groups, options);
    }
  }
  throw std::logic_error("makeOptimizer: an optimizer name without a case");
}

size_t addParameters(torch::optim::Optimizer& optimizer, const OptimizerConfig& config,
                     const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters,
                     const std::map<std::string, std::string>& external_names) {
  std::set<const void*> present;
  for (const torch::optim::OptimizerParamGroup& group : optimizer.param_groups()) {
    for (const torch::Tensor& parameter : group.params()) present.insert(parameter.unsafeGetTensorImpl());
  }
  const std::vector<GroupPlan> plans = planGroups(config, named_parameters, external_names, present);
  for (const GroupPlan& plan : plans) {
    optimizer.add_param_group(torch::optim::OptimizerParamGroup(plan.params));
    configureGroup(optimizer.param_groups().back(), config, plan);
  }
  return plans.size();
}

std::vector<double> groupLearningRates(torch::optim::Optimizer& optimizer) {
  std::vector<double> lrs;
  for (torch::optim::OptimizerParamGroup& group : optimizer.param_groups())
    lrs.push_back(group.options().get_lr());
  return lrs;
}

void setLearningRates(torch::optim::Optimizer& optimizer, const std::vector<double>& lrs) {
  auto& groups = optimizer.param_groups();
  if (lrs.size() == 1) return setLearningRate(optimizer, lrs.front());
  if (lrs.size() != groups.size()) {
    throw std::logic_error("setLearningRates: " + std::to_string(lrs.size()) + " rates for " +
                           std::to_string(groups.size()) + " parameter groups");
  }
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
}

void setLearningRate(torch::optim::Optimizer& optimizer, double lr) {
  for (torch::optim::OptimizerParamGroup& group : optimizer.param_groups()) {
    group.options().set_lr(lr);
  }
}

}  // namespace wb
