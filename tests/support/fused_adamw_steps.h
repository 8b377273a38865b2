#pragma once
// Five AdamW steps of ours on the fused path (FusedAdamW: LibTorch 2.x's _fused_adamw_ kernel with the
// learning rates and step counts in device tensors), the third with an inf in one gradient — found_inf 1, as
// the loss scaler finds it — each with its own learning rate and the scaler's grad_scale, written with
// torch::pickle_save for tests/python/fused_adamw_replay.py, which runs the same steps through PyTorch's own
// torch.optim.AdamW(fused=True) with grad_scale and found_inf set as torch.amp.GradScaler sets them, and
// compares every parameter, moment and step count bit for bit. Where: the CPU fused kernel in test_optim (a
// LibTorch >= 2.4, against the .venv's pip torch), CUDA in test_gpu (scripts/gpu-check.sh replays it on the
// GPU machine's torch).

#include <torch/torch.h>

#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "optim/fused_adam.h"
#include "support/optimizer_steps.h"
#include "torch_compat.h"

namespace wb::test {

struct FusedAdamwSteps {
  std::vector<int64_t> saved_steps;  // each parameter's step count in the saved state (4: one step skipped)
  bool skipped_step_left_weights = false;  // the inf step changed no parameter
};

inline FusedAdamwSteps writeFusedAdamwSteps(const torch::Device& device, const std::string& path) {
  constexpr int kSteps = 5;
  constexpr int kInfStep = 2;
  constexpr double kScale = 65536.0;
  torch::manual_seed(53);
  Params params = {torch::randn({16, 3, 3, 3}), torch::randn({64, 40}), torch::randn({64}), torch::randn({})};
  for (auto& p : params) p = p.to(device).requires_grad_(true);
  c10::List<at::Tensor> initial;
  for (const auto& p : params) initial.push_back(p.detach().cpu().clone());
  auto ours = build<FusedAdamW>(params, torch::optim::AdamWOptions(1e-3).weight_decay(0.05));
  ours->setStepPath(StepPath::Fused);
  const auto on_device = torch::TensorOptions().dtype(torch::kFloat).device(device);
  const torch::Tensor scale = torch::full({1}, kScale, on_device);
  c10::List<c10::List<at::Tensor>> grads;
  c10::List<double> lrs, found_infs;
  FusedAdamwSteps out;
  for (int step = 0; step < kSteps; ++step) {
    const double lr = 1e-3 * (1 + step % 3);
    for (auto& group : ours->param_groups()) group.options().set_lr(lr);
    c10::List<at::Tensor> step_grads;
    for (size_t i = 0; i < params.size(); ++i) {
      torch::manual_seed(100 * static_cast<uint64_t>(step) + i);
      params[i].mutable_grad() = (torch::randn(params[i].sizes()) * kScale).to(device);
      if (step == kInfStep && i == 1) params[i].mutable_grad()[3][7] = std::numeric_limits<float>::infinity();
      step_grads.push_back(params[i].grad().cpu().clone());
    }
    const Params before = cloneParameters(params);
    ours->stageLearningRates();
    ours->stepScaled(scale, torch::full({1}, step == kInfStep ? 1.0 : 0.0, on_device));
    if (step == kInfStep) {
      out.skipped_step_left_weights = true;
      for (size_t i = 0; i < params.size(); ++i)
        out.skipped_step_left_weights &= torch::equal(params[i], before[i]);
    }
    grads.push_back(step_grads);
    lrs.push_back(lr);
    found_infs.push_back(step == kInfStep ? 1.0 : 0.0);
  }
  // The state as a checkpoint keeps it, read back through LibTorch's own AdamW.
  const Params copies = cloneParameters(params);
  auto reader = build<torch::optim::AdamW>(copies, torch::optim::AdamWOptions(1e-3));
  load(*reader, saved(*ours));
  c10::List<at::Tensor> final_params, exp_avg, exp_avg_sq;
  for (size_t i = 0; i < params.size(); ++i) {
    using StateMap = std::decay_t<decltype(reader->state())>;
    const auto& state = static_cast<const torch::optim::AdamWParamState&>(
        *reader->state().at(compat::optimizerStateKey<StateMap>(copies[i])));
    final_params.push_back(params[i].detach().cpu().clone());
    exp_avg.push_back(state.exp_avg().cpu().clone());
    exp_avg_sq.push_back(state.exp_avg_sq().cpu().clone());
    out.saved_steps.push_back(state.step());
  }
  c10::impl::GenericDict dump(c10::StringType::get(), c10::AnyType::get());
  dump.insert("initial", c10::IValue(initial));
  dump.insert("grads", c10::IValue(grads));
  dump.insert("lrs", c10::IValue(lrs));
  dump.insert("found_inf", c10::IValue(found_infs));
  dump.insert("grad_scale", c10::IValue(kScale));
  dump.insert("weight_decay",
              c10::IValue(c10::List<double>({0.05, 0.0})));  // build(): the second group has none
  dump.insert("betas", c10::IValue(c10::List<double>({0.9, 0.999})));
  dump.insert("eps", c10::IValue(1e-8));
  dump.insert("params", c10::IValue(final_params));
  dump.insert("exp_avg", c10::IValue(exp_avg));
  dump.insert("exp_avg_sq", c10::IValue(exp_avg_sq));
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(dump));
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return out;
}

}  // namespace wb::test
