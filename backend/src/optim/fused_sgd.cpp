#include "optim/fused_sgd.h"

#include "optim/multi_tensor_step.h"
#include "torch_compat.h"

namespace wb {

namespace {

using StateMap = std::remove_reference_t<decltype(std::declval<torch::optim::Optimizer&>().state())>;

SgdHyper hyperOf(const torch::optim::SGDOptions& o) {
  SgdHyper h;
  h.momentum = o.momentum();
  h.dampening = o.dampening();
  h.weight_decay = o.weight_decay();
  h.nesterov = o.nesterov();
  return h;
}

torch::optim::SGDParamState* findState(StateMap& state, const torch::Tensor& p) {
  const auto it = state.find(compat::optimizerStateKey<StateMap>(p));
  return it == state.end() ? nullptr : static_cast<torch::optim::SGDParamState*>(it->second.get());
}

void storeBuffer(StateMap& state, const torch::Tensor& p, const torch::Tensor& buffer) {
  auto fresh = std::make_unique<torch::optim::SGDParamState>();
  fresh->momentum_buffer(buffer);
  state[compat::optimizerStateKey<StateMap>(p)] = std::move(fresh);
}

// The fused kernel walks a parameter, its gradient and its momentum buffer as `numel` elements of one dtype
// from their data pointers; a buffer saved in another layout (a resume with channels_last toggled) or dtype
// stops it on a check. The foreach ops take any layout, as AdamListStep::covers sends Adam's moments there.
bool buffersLaidOutLikeParameters(const std::vector<torch::optim::OptimizerParamGroup>& groups,
                                  const StateMap& state) {
  for (const auto& group : groups) {
    for (const torch::Tensor& p : group.params()) {
      const auto it = state.find(compat::optimizerStateKey<StateMap>(p));
      if (it == state.end()) continue;
      const torch::Tensor& buffer =
          static_cast<const torch::optim::SGDParamState&>(*it->second).momentum_buffer();
      if (!buffer.defined()) continue;
      if (buffer.device() != p.device() || buffer.scalar_type() != p.scalar_type() ||
          buffer.sizes() != p.sizes() || buffer.strides() != p.strides()) {
        return false;
      }
    }
  }
  return true;
}

struct SgdLists {
  std::vector<torch::Tensor> params, grads, buffers;
};

SgdLists listsOf(const torch::optim::OptimizerParamGroup& group) {
  SgdLists lists;
  for (const torch::Tensor& p : group.params()) {
    if (!p.grad().defined()) continue;
    lists.params.push_back(p);
    lists.grads.push_back(p.grad());
  }
  return lists;
}

}  // namespace

StepPath FusedSGD::nextStepPath() const {
  const StepPath path = resolveStepPath(m_path, param_groups_, WB_HAS_FUSED_SGD);
  if (path != StepPath::Fused) return path;
  // The fused path starts a momentum buffer at zero (see stepScaled): the same as LibTorch's copy of the
  // first gradient only without dampening.
  for (const auto& group : param_groups_) {
    if (static_cast<const torch::optim::SGDOptions&>(group.options()).dampening() != 0)
      return StepPath::Foreach;
  }
  if (!buffersLaidOutLikeParameters(param_groups_, state_)) return StepPath::Foreach;
  return path;
}

torch::Tensor FusedSGD::step(LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  switch (nextStepPath()) {
    case StepPath::Fused:
      stageLearningRates();
      stepScaled({}, {});
      break;
    case StepPath::Foreach:
      foreachStep();
      break;
    default:
      torch::optim::SGD::step();
  }
  return loss;
}

std::vector<torch::Tensor> FusedSGD::graphTensors() const {
  std::vector<torch::Tensor> tensors;
  for (const auto& group : param_groups_) {
    for (const torch::Tensor& p : group.params()) {
      tensors.push_back(p);
      const auto it = state_.find(compat::optimizerStateKey<StateMap>(p));
      tensors.push_back(it == state_.end()
                            ? torch::Tensor()
                            : static_cast<const torch::optim::SGDParamState&>(*it->second).momentum_buffer());
    }
  }
  tensors.insert(tensors.end(), m_lrs.tensors().begin(), m_lrs.tensors().end());
  return tensors;
}

void FusedSGD::stageLearningRates() {
  m_lrs.stage(param_groups_);
}

void FusedSGD::foreachStep() {
  torch::NoGradGuard no_grad;
  for (auto& group : param_groups_) {
    const auto& options = static_cast<const torch::optim::SGDOptions&>(group.options());
    SgdLists lists = listsOf(group);
    if (options.momentum() != 0) {
      for (const torch::Tensor& p : lists.params) {
        const torch::optim::SGDParamState* s = findState(state_, p);
        lists.buffers.push_back(s != nullptr ? s->momentum_buffer() : torch::Tensor());
      }
    }
    foreachSgdStep(lists.params, lists.grads, lists.buffers, options.lr(), hyperOf(options));
    for (size_t i = 0; i < lists.buffers.size(); ++i) {
      if (findState(state_, lists.params[i]) == nullptr)
        storeBuffer(state_, lists.params[i], lists.buffers[i]);
    }
  }
}

void FusedSGD::stepScaled(const torch::Tensor& grad_scale, const torch::Tensor& found_inf) {
  TORCH_CHECK(stepsOnDevice(), "stepScaled: this optimizer's step does not run on the device");
#if WB_HAS_FUSED_SGD
  torch::NoGradGuard no_grad;
  if (m_lrs.size() != param_groups_.size()) stageLearningRates();
  for (size_t g = 0; g < param_groups_.size(); ++g) {
    const auto& options = static_cast<const torch::optim::SGDOptions&>(param_groups_[g].options());
    SgdLists lists = listsOf(param_groups_[g]);
    if (options.momentum() != 0) {
      for (const torch::Tensor& p : lists.params) {
        // A new buffer starts at zero rather than as a copy of the gradient (torch's is_first_step): without
        // dampening, momentum * 0 + grad is that copy, and a first step that found_inf skips leaves zeros,
        // not the uninitialized memory torch's fused SGD would keep.
        if (findState(state_, p) == nullptr) {
          storeBuffer(state_, p, torch::zeros_like(p, torch::MemoryFormat::Preserve));
        }
        lists.buffers.push_back(findState(state_, p)->momentum_buffer());
      }
    }
    fusedSgdStep(lists.params, lists.grads, lists.buffers, m_lrs[g], hyperOf(options),
                 /*is_first_step=*/false, grad_scale, found_inf);
  }
#else
  (void)grad_scale;
  (void)found_inf;
#endif
}

}  // namespace wb
