#include "optim/optimizer_factory.h"

#include <stdexcept>
#include <tuple>

#include "optim/foreach_optimizers.h"
#include "optim/fused_adam.h"
#include "optim/fused_sgd.h"
#include "workbench/errors.h"

namespace wb {

namespace {

struct ParameterGroups {
  std::vector<torch::Tensor> decayed;
  std::vector<torch::Tensor> not_decayed;
};

// The rule for "biases and norm weights": every parameter of at most one dimension. It needs no knowledge of
// the layer a parameter came from, so it holds for presets, layer lists and TorchScript models alike (it
// also exempts learnable scalars, which weight decay would only pull towards zero).
ParameterGroups groupParameters(const OptimizerConfig& config,
                                const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters) {
  ParameterGroups groups;
  for (const auto& named : named_parameters) {
    const torch::Tensor& parameter = named.second;
    if (!parameter.requires_grad()) {
      continue;  // frozen: the optimizer must not touch it (weight decay would still move it)
    }
    if (!config.decay_bias_and_norm && parameter.dim() <= 1) {
      groups.not_decayed.push_back(parameter);
    } else {
      groups.decayed.push_back(parameter);
    }
  }
  return groups;
}

// Builds the optimizer with the decayed group first and the undecayed group second (empty groups left out).
// The undecayed group's weight decay is set to 0 after construction rather than by giving that group its own
// options: from 2.x on, LibTorch merges a group's options with the defaults and treats a field equal to the
// options' constructor default (weight_decay 0 for most of them) as "not set", which would hand that group
// the optimizer's weight decay.
template <typename OptimizerType, typename OptionsType>
std::unique_ptr<torch::optim::Optimizer> buildOptimizer(const ParameterGroups& groups,
                                                        const OptionsType& options) {
  std::vector<torch::optim::OptimizerParamGroup> param_groups;
  if (!groups.decayed.empty()) {
    param_groups.emplace_back(groups.decayed);
  }
  if (!groups.not_decayed.empty()) {
    param_groups.emplace_back(groups.not_decayed);
  }
  auto optimizer = std::make_unique<OptimizerType>(param_groups, options);
  if (!groups.not_decayed.empty()) {
    static_cast<OptionsType&>(optimizer->param_groups().back().options()).weight_decay(0.0);
  }
  return optimizer;
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(
    const OptimizerConfig& config,
    const std::vector<std::pair<std::string, torch::Tensor>>& named_parameters) {
  const ParameterGroups groups = groupParameters(config, named_parameters);
  if (groups.decayed.empty() && groups.not_decayed.empty()) {
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
      return config.fused ? buildOptimizer<FusedSGD>(groups, options)
                          : buildOptimizer<torch::optim::SGD>(groups, options);
    }
    case OptimizerName::Adam: {
      // weight_decay is L2: added to the gradient, as torch.optim.Adam does (adamw decouples it).
      const auto options = torch::optim::AdamOptions(config.lr)
                               .betas(std::make_tuple(config.beta1, config.beta2))
                               .eps(config.eps)
                               .weight_decay(config.weight_decay)
                               .amsgrad(false);
      return config.fused ? buildOptimizer<FusedAdam>(groups, options)
                          : buildOptimizer<torch::optim::Adam>(groups, options);
    }
    case OptimizerName::AdamW: {
      const auto options = torch::optim::AdamWOptions(config.lr)
                               .betas(std::make_tuple(config.beta1, config.beta2))
                               .eps(config.eps)
                               .weight_decay(config.weight_decay)
                               .amsgrad(false);
      return config.fused ? buildOptimizer<FusedAdamW>(groups, options)
                          : buildOptimizer<torch::optim::AdamW>(groups, options);
    }
    case OptimizerName::RmsProp: {
      const auto options = torch::optim::RMSpropOptions(config.lr)
                               .alpha(config.alpha)
                               .eps(config.eps)
                               .weight_decay(config.weight_decay)
                               .momentum(config.momentum)
                               .centered(false);
      return config.fused ? buildOptimizer<ForeachRMSprop>(groups, options)
                          : buildOptimizer<torch::optim::RMSprop>(groups, options);
    }
    case OptimizerName::Adagrad: {
      // eps is taken as configured. Its default (1e-8) is Adam's; torch's Adagrad defaults to 1e-10, which a
      // user who wants torch's exact default sets as optimizer.eps.
      const auto options = torch::optim::AdagradOptions(config.lr)
                               .lr_decay(0.0)
                               .weight_decay(config.weight_decay)
                               .initial_accumulator_value(0.0)
                               .eps(config.eps);
      return config.fused ? buildOptimizer<ForeachAdagrad>(groups, options)
                          : buildOptimizer<torch::optim::Adagrad>(groups, options);
    }
  }
  throw std::logic_error("makeOptimizer: an optimizer name without a case");
}

void setLearningRate(torch::optim::Optimizer& optimizer, double lr) {
  for (torch::optim::OptimizerParamGroup& group : optimizer.param_groups()) {
    group.options().set_lr(lr);
  }
}

}  // namespace wb
