#pragma once
// Adam and AdamW that take the fastest update there is for where their parameters are (step_path.h):
// - on CUDA, LibTorch's fused multi-tensor kernel (`_fused_adam_` / `_fused_adamw_`, 2.x) with the learning
//   rates and step counts in device tensors: a few launches per step where LibTorch's own step launches about
//   nine per parameter, no host read, and the loss scaler's grad_scale / found_inf handled inside the kernel
//   (DeviceStep); on LibTorch 1.13, which has no such kernel, `_foreach_` ops (adam_list_step.h);
// - for dense float32 parameters on the CPU, one pass over each parameter's weights, gradient and two
// moments,
//   split across the intra-op threads (adam_update_kernel.h). LibTorch's own step is nine tensor ops per
//   parameter (each a sweep over memory, two of them allocating a temporary); for a small model at a small
//   batch that was a third of the step. It does the same float32 operations in the same order as
//   torch.optim's single-tensor step.
// What stays LibTorch's: the options, the per-parameter state (step, exp_avg, exp_avg_sq), save/load — a
// checkpoint moves freely between these and the plain optimizer, between the CPU and CUDA and between
// LibTorch 1.13 and 2.x. Whatever no list or CPU pass covers (other dtypes, sparse gradients, tensors whose
// gradient or state is laid out differently, parameters on several devices, amsgrad) takes LibTorch's step.

#include <torch/torch.h>

#include <string>
#include <type_traits>
#include <vector>

#include "optim/adam_list_step.h"
#include "optim/device_step.h"
#include "optim/step_path.h"

namespace wb {

template <typename Base, typename Options, typename State>
class FusedAdamOptimizer final : public Base, public DeviceStep, public ReportsStepPath {
 public:
  using Base::Base;

  torch::Tensor step(torch::optim::Optimizer::LossClosure closure = nullptr) override;
  // The device step counts go into LibTorch's int64 `step` first: the archive is the plain optimizer's.
  void save(torch::serialize::OutputArchive& archive) const override;
  // The loaded int64 counts become the device ones on the next fused step.
  void load(torch::serialize::InputArchive& archive) override;

  // True on the fused path: CUDA parameters on LibTorch >= 2.2 (false on 1.13, whose foreach step reads
  // host step counts), or any device when a test forces StepPath::Fused.
  bool stepsOnDevice() const override;
  bool capturable() const override { return stepsOnDevice(); }
  void stageLearningRates() override;
  void stepScaled(const torch::Tensor& grad_scale, const torch::Tensor& found_inf) override;
  std::vector<torch::Tensor> graphTensors() const override;

  StepPath nextStepPath() const override;
  void setStepPath(StepPath path) override { m_path = path; }

 private:
  StepPath m_path = StepPath::Auto;
  AdamListStep<Options, State> m_lists{std::is_same_v<Options, torch::optim::AdamWOptions>};
};

extern template class FusedAdamOptimizer<torch::optim::Adam, torch::optim::AdamOptions,
                                         torch::optim::AdamParamState>;
extern template class FusedAdamOptimizer<torch::optim::AdamW, torch::optim::AdamWOptions,
                                         torch::optim::AdamWParamState>;

using FusedAdam =
    FusedAdamOptimizer<torch::optim::Adam, torch::optim::AdamOptions, torch::optim::AdamParamState>;
using FusedAdamW =
    FusedAdamOptimizer<torch::optim::AdamW, torch::optim::AdamWOptions, torch::optim::AdamWParamState>;

// Whether `optimizer` takes one of our faster steps for all its parameters (false for LibTorch's optimizers
// and where ours fall back to LibTorch's step): what the run log reports.
bool takesFusedStep(const torch::optim::Optimizer& optimizer);

// That step in words for the run log: "fused CUDA step", "foreach step", "fused CPU step", or "" for
// LibTorch's per-parameter step.
std::string stepDescription(const torch::optim::Optimizer& optimizer);

}  // namespace wb
