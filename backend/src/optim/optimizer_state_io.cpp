#include "optim/optimizer_state_io.h"

#include <string>
#include <vector>

#include "torch_compat.h"
#include "workbench/errors.h"

namespace wb {
namespace {

// The saved groups' state keys, group by group, in parameter order.
std::vector<std::vector<std::string>> savedKeys(torch::serialize::InputArchive& groups) {
  torch::Tensor group_count;
  groups.read("param_groups/size", group_count);
  std::vector<std::vector<std::string>> keys(static_cast<size_t>(group_count.item<int64_t>()));
  for (size_t g = 0; g < keys.size(); ++g) {
    torch::serialize::InputArchive group;
    groups.read("param_groups/" + std::to_string(g), group);
    torch::Tensor count;
    group.read("params/size", count);
    for (int64_t i = 0; i < count.item<int64_t>(); ++i) {
      c10::IValue key;
      group.read("params/" + std::to_string(i), key);
      keys[g].push_back(key.toStringRef());
    }
  }
  return keys;
}

// A checkpoint is read onto the CPU; each parameter's state goes to that parameter's device, as PyTorch's
// Optimizer.load_state_dict casts it (a run resumed on CUDA failed its first step with CPU moments
// otherwise).
void moveToDevice(torch::Tensor& t, const torch::Device& device) {
  if (t.defined() && t.device() != device) t = t.to(device);
}
void moveStateTo(torch::optim::AdamParamState& s, const torch::Device& d) {
  moveToDevice(s.exp_avg(), d);
  moveToDevice(s.exp_avg_sq(), d);
  moveToDevice(s.max_exp_avg_sq(), d);
}
void moveStateTo(torch::optim::AdamWParamState& s, const torch::Device& d) {
  moveToDevice(s.exp_avg(), d);
  moveToDevice(s.exp_avg_sq(), d);
  moveToDevice(s.max_exp_avg_sq(), d);
}
void moveStateTo(torch::optim::SGDParamState& s, const torch::Device& d) {
  moveToDevice(s.momentum_buffer(), d);
}
void moveStateTo(torch::optim::RMSpropParamState& s, const torch::Device& d) {
  moveToDevice(s.square_avg(), d);
  moveToDevice(s.momentum_buffer(), d);
  moveToDevice(s.grad_avg(), d);
}
void moveStateTo(torch::optim::AdagradParamState& s, const torch::Device& d) {
  moveToDevice(s.sum(), d);
}

template <typename ParamState>
void reattach(torch::optim::Optimizer& optimizer, torch::serialize::InputArchive& saved) {
  torch::serialize::InputArchive states;
  torch::serialize::InputArchive groups;
  if (!saved.try_read("state", states) || !saved.try_read("param_groups", groups)) return;
  const std::vector<std::vector<std::string>> keys = savedKeys(groups);
  auto& state = optimizer.state();
  using StateMap = std::remove_reference_t<decltype(state)>;
  if (keys.size() != optimizer.param_groups().size()) {
    throw UserError(
        "the checkpoint's optimizer has " + std::to_string(keys.size()) +
            " parameter groups, this "
            "one " +
            std::to_string(optimizer.param_groups().size()),
        "The optimizer or the model in experiment.json was changed after the checkpoint was written.");
  }
  state.clear();
  for (size_t g = 0; g < keys.size(); ++g) {
    const std::vector<torch::Tensor>& params = optimizer.param_groups()[g].params();
    if (keys[g].size() != params.size()) {
      throw UserError("the checkpoint's optimizer group " + std::to_string(g) + " has " +
                          std::to_string(keys[g].size()) + " parameters, this one " +
                          std::to_string(params.size()),
                      "The model in experiment.json was changed after the checkpoint was written.");
    }
    for (size_t i = 0; i < params.size(); ++i) {
      torch::serialize::InputArchive one;
      if (!states.try_read(keys[g][i], one)) continue;  // no state yet (no step has touched it)
      auto param_state = std::make_unique<ParamState>();
      param_state->serialize(one);
      moveStateTo(*param_state, params[i].device());
      state[compat::optimizerStateKey<StateMap>(params[i])] = std::move(param_state);
    }
  }
}

}  // namespace

void loadOptimizerState(torch::optim::Optimizer& optimizer, torch::serialize::InputArchive& saved) {
  optimizer.load(saved);
  // AdamW derives from neither Adam nor the reverse; the fused ones derive from them.
  if (dynamic_cast<torch::optim::AdamW*>(&optimizer) != nullptr) {
    reattach<torch::optim::AdamWParamState>(optimizer, saved);
  } else if (dynamic_cast<torch::optim::Adam*>(&optimizer) != nullptr) {
    reattach<torch::optim::AdamParamState>(optimizer, saved);
  } else if (dynamic_cast<torch::optim::SGD*>(&optimizer) != nullptr) {
    reattach<torch::optim::SGDParamState>(optimizer, saved);
  } else if (dynamic_cast<torch::optim::RMSprop*>(&optimizer) != nullptr) {
    reattach<torch::optim::RMSpropParamState>(optimizer, saved);
  } else if (dynamic_cast<torch::optim::Adagrad*>(&optimizer) != nullptr) {
    reattach<torch::optim::AdagradParamState>(optimizer, saved);
  }
}

}  // namespace wb
