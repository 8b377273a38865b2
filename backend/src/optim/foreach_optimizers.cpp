#include "optim/foreach_optimizers.h"

#include <memory>
#include <vector>

#include "optim/multi_tensor_step.h"
#include "torch_compat.h"

namespace wb {

namespace {

using StateMap = std::remove_reference_t<decltype(std::declval<torch::optim::Optimizer&>().state())>;

torch::Tensor runClosure(const torch::optim::Optimizer::LossClosure& closure) {
  if (!closure) return {};
  at::AutoGradMode enable_grad(true);
  return closure();
}

// The state LibTorch's RMSprop makes on a parameter's first step (not centered).
torch::optim::RMSpropParamState& rmspropState(StateMap& state, const torch::Tensor& p,
                                              const torch::optim::RMSpropOptions& options) {
  const auto key = compat::optimizerStateKey<StateMap>(p);
  auto it = state.find(key);
  if (it == state.end()) {
    auto fresh = std::make_unique<torch::optim::RMSpropParamState>();
    fresh->step(0);
    fresh->square_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    if (options.momentum() > 0) fresh->momentum_buffer(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    it = state.emplace(key, std::move(fresh)).first;
  }
  return static_cast<torch::optim::RMSpropParamState&>(*it->second);
}

// LibTorch's Adagrad makes every parameter's state in its constructor; a checkpoint that had none for one
// (no step touched it) leaves it to be made here the same way.
torch::optim::AdagradParamState& adagradState(StateMap& state, const torch::Tensor& p,
                                              const torch::optim::AdagradOptions& options) {
  const auto key = compat::optimizerStateKey<StateMap>(p);
  auto it = state.find(key);
  if (it == state.end()) {
    auto fresh = std::make_unique<torch::optim::AdagradParamState>();
    fresh->step(0);
    fresh->sum(torch::full_like(p, options.initial_accumulator_value(), torch::MemoryFormat::Preserve));
    it = state.emplace(key, std::move(fresh)).first;
  }
  return static_cast<torch::optim::AdagradParamState&>(*it->second);
}

}  // namespace

StepPath ForeachRMSprop::nextStepPath() const {
  for (const auto& group : param_groups_) {
    if (static_cast<const torch::optim::RMSpropOptions&>(group.options()).centered())
      return StepPath::LibTorch;
  }
  return resolveStepPath(m_path, param_groups_, /*has_fused_kernel=*/false);
}

torch::Tensor ForeachRMSprop::step(LossClosure closure) {
  torch::Tensor loss = runClosure(closure);
  if (nextStepPath() != StepPath::Foreach) {
    torch::optim::RMSprop::step();
    return loss;
  }
  torch::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& options = static_cast<const torch::optim::RMSpropOptions&>(group.options());
    std::vector<torch::Tensor> params, grads, square_avgs, buffers;
    for (const torch::Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = rmspropState(state_, p, options);
      s.step(s.step() + 1);
      params.push_back(p);
      grads.push_back(p.grad());
      square_avgs.push_back(s.square_avg());
      if (options.momentum() > 0) buffers.push_back(s.momentum_buffer());
    }
    RmspropHyper hyper;
    hyper.alpha = options.alpha();
    hyper.eps = options.eps();
    hyper.weight_decay = options.weight_decay();
    hyper.momentum = options.momentum();
    foreachRmspropStep(params, grads, square_avgs, buffers, options.lr(), hyper);
  }
  return loss;
}

StepPath ForeachAdagrad::nextStepPath() const {
  return resolveStepPath(m_path, param_groups_, /*has_fused_kernel=*/false);
}

torch::Tensor ForeachAdagrad::step(LossClosure closure) {
  torch::Tensor loss = runClosure(closure);
  if (nextStepPath() != StepPath::Foreach) {
    torch::optim::Adagrad::step();
    return loss;
  }
  torch::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& options = static_cast<const torch::optim::AdagradOptions&>(group.options());
    std::vector<torch::Tensor> params, grads, sums;
    std::vector<int64_t> steps;
    for (const torch::Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& s = adagradState(state_, p, options);
      s.step(s.step() + 1);
      params.push_back(p);
      grads.push_back(p.grad());
      sums.push_back(s.sum());
      steps.push_back(s.step());
    }
    AdagradHyper hyper;
    hyper.lr_decay = options.lr_decay();
    hyper.eps = options.eps();
    hyper.weight_decay = options.weight_decay();
    foreachAdagradStep(params, grads, sums, steps, options.lr(), hyper);
  }
  return loss;
}

}  // namespace wb
