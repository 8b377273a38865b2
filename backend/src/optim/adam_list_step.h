#pragma once
// Adam/AdamW's update over whole lists of parameters, for FusedAdam/FusedAdamW (fused_adam.h): LibTorch's
// fused kernel (2.x) or the foreach ops (1.13, and tests). The state stays LibTorch's AdamParamState /
// AdamWParamState (int64 step, exp_avg, exp_avg_sq), so checkpoints are the plain optimizer's. The fused
// kernel reads each parameter's step count from a float32 tensor on the device instead (as torch.optim's
// fused=True does): those tensors are made from the int64 counts on the first fused step and written back
// into them before a save (the one host read, at checkpoint time) or before any other step runs.

#include <torch/torch.h>

#include <memory>
#include <type_traits>
#include <vector>

#include "optim/step_path.h"
#include "torch_compat.h"

namespace wb {

using OptimizerStateMap = std::remove_reference_t<decltype(std::declval<torch::optim::Optimizer&>().state())>;

// A parameter's state, made as LibTorch's step makes it on the parameter's first step.
template <typename State>
State& adamStateFor(OptimizerStateMap& state, const torch::Tensor& p) {
  const auto key = compat::optimizerStateKey<OptimizerStateMap>(p);
  auto it = state.find(key);
  if (it == state.end()) {
    auto fresh = std::make_unique<State>();
    fresh->step(0);
    fresh->exp_avg(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    fresh->exp_avg_sq(torch::zeros_like(p, torch::MemoryFormat::Preserve));
    it = state.emplace(key, std::move(fresh)).first;
  }
  return static_cast<State&>(*it->second);
}

template <typename Options, typename State>
class AdamListStep {
 public:
  using Groups = std::vector<torch::optim::OptimizerParamGroup>;

  explicit AdamListStep(bool decoupled) : m_decoupled(decoupled) {}

  // Every group without amsgrad and every moment it already has laid out like its parameter.
  static bool covers(const Groups& groups, const OptimizerStateMap& state);

  // Each group's options' lr into its float32 device tensor (made on the first call).
  void stageLearningRates(const Groups& groups);

  // The fused kernel over each group; the learning rates as staged last.
  void fusedStep(Groups& groups, OptimizerStateMap& state, const torch::Tensor& grad_scale,
                 const torch::Tensor& found_inf);

  // The foreach ops over each group, with the int64 step counts and the options' lr.
  void foreachStep(Groups& groups, OptimizerStateMap& state);

  // The device step counts into the int64 ones (a host read), then forgotten: called before any other step
  // runs (it counts on the int64 ones) and after a load (which brings its own).
  void returnStepCounts(const Groups& groups, const OptimizerStateMap& state);

  // The device step counts into the int64 ones, kept: called before a save.
  void writeStepCounts(const Groups& groups, const OptimizerStateMap& state) const;

  void forgetStepCounts() { m_steps.clear(); }

  // The staged learning rates and the device step counts (DeviceStep::graphTensors).
  void appendDeviceTensors(std::vector<torch::Tensor>& into) const;

 private:
  bool m_decoupled;
  StagedLearningRates m_lrs;
  std::vector<std::vector<torch::Tensor>> m_steps;  // per group, per parameter: float32, 0-dim, on its device
};

extern template class AdamListStep<torch::optim::AdamOptions, torch::optim::AdamParamState>;
extern template class AdamListStep<torch::optim::AdamWOptions, torch::optim::AdamWParamState>;

}  // namespace wb
