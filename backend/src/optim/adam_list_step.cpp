#include "optim/adam_list_step.h"

#include <cmath>
#include <tuple>

#include "optim/multi_tensor_step.h"
#include "optim/step_path.h"

namespace wb {

namespace {

template <typename Options>
AdamHyper hyperOf(const Options& o, bool decoupled) {
  AdamHyper h;
  h.beta1 = std::get<0>(o.betas());
  h.beta2 = std::get<1>(o.betas());
  h.eps = o.eps();
  h.weight_decay = o.weight_decay();
  h.decoupled = decoupled;
  return h;
}

bool laidOutLike(const torch::Tensor& t, const torch::Tensor& p) {
  return t.defined() && t.device() == p.device() && t.scalar_type() == p.scalar_type() &&
         t.sizes() == p.sizes() && t.strides() == p.strides();
}

template <typename State>
const State* findState(const OptimizerStateMap& state, const torch::Tensor& p) {
  const auto it = state.find(compat::optimizerStateKey<OptimizerStateMap>(p));
  return it == state.end() ? nullptr : static_cast<const State*>(it->second.get());
}

// The parameters of one group that have a gradient, with their gradients and moments.
struct AdamLists {
  std::vector<torch::Tensor> params, grads, exp_avgs, exp_avg_sqs;
  std::vector<size_t> positions;  // each one's index in the group
};

template <typename State>
AdamLists listsOf(const torch::optim::OptimizerParamGroup& group, OptimizerStateMap& state) {
  AdamLists lists;
  for (size_t i = 0; i < group.params().size(); ++i) {
    const torch::Tensor& p = group.params()[i];
    if (!p.grad().defined()) continue;
    State& s = adamStateFor<State>(state, p);
    lists.params.push_back(p);
    lists.grads.push_back(p.grad());
    lists.exp_avgs.push_back(s.exp_avg());
    lists.exp_avg_sqs.push_back(s.exp_avg_sq());
    lists.positions.push_back(i);
  }
  return lists;
}

}  // namespace

template <typename Options, typename State>
bool AdamListStep<Options, State>::covers(const Groups& groups, const OptimizerStateMap& state) {
  for (const auto& group : groups) {
    if (static_cast<const Options&>(group.options()).amsgrad()) return false;
    for (const torch::Tensor& p : group.params()) {
      if (const State* s = findState<State>(state, p)) {
        if (!laidOutLike(s->exp_avg(), p) || !laidOutLike(s->exp_avg_sq(), p)) return false;
      }
    }
  }
  return true;
}

template <typename Options, typename State>
void AdamListStep<Options, State>::stageLearningRates(const Groups& groups) {
  m_lrs.stage(groups);
}

template <typename Options, typename State>
void AdamListStep<Options, State>::fusedStep(Groups& groups, OptimizerStateMap& state,
                                             const torch::Tensor& grad_scale,
                                             const torch::Tensor& found_inf) {
#if WB_HAS_FUSED_ADAM
  torch::NoGradGuard no_grad;
  if (m_lrs.size() != groups.size()) stageLearningRates(groups);
  m_steps.resize(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    AdamLists lists = listsOf<State>(groups[g], state);
    if (lists.params.empty()) continue;
    std::vector<torch::Tensor>& counts = m_steps[g];
    counts.resize(groups[g].params().size());
    std::vector<torch::Tensor> steps;
    for (size_t k = 0; k < lists.params.size(); ++k) {
      State& s = adamStateFor<State>(state, lists.params[k]);
      torch::Tensor& count = counts[lists.positions[k]];
      if (!count.defined()) {
        count = torch::full({}, static_cast<double>(s.step()),
                            torch::TensorOptions().dtype(torch::kFloat).device(lists.params[k].device()));
      }
      // Kept counting on the host too (exact unless found_inf skipped steps): written over before a save.
      s.step(s.step() + 1);
      steps.push_back(count);
    }
    fusedAdamStep(lists.params, lists.grads, lists.exp_avgs, lists.exp_avg_sqs, steps, m_lrs[g],
                  hyperOf(static_cast<const Options&>(groups[g].options()), m_decoupled), grad_scale,
                  found_inf);
  }
#else
  (void)groups;
  (void)state;
  (void)grad_scale;
  (void)found_inf;
  TORCH_CHECK(false, "this LibTorch has no fused Adam kernel with a tensor learning rate");
#endif
}

template <typename Options, typename State>
void AdamListStep<Options, State>::foreachStep(Groups& groups, OptimizerStateMap& state) {
  torch::NoGradGuard no_grad;
  for (auto& group : groups) {
    AdamLists lists = listsOf<State>(group, state);
    std::vector<int64_t> steps;
    for (const torch::Tensor& p : lists.params) {
      State& s = adamStateFor<State>(state, p);
      s.step(s.step() + 1);
      steps.push_back(s.step());
    }
    const auto& options = static_cast<const Options&>(group.options());
    foreachAdamStep(lists.params, lists.grads, lists.exp_avgs, lists.exp_avg_sqs, steps, options.lr(),
                    hyperOf(options, m_decoupled));
  }
}

template <typename Options, typename State>
void AdamListStep<Options, State>::writeStepCounts(const Groups& groups,
                                                   const OptimizerStateMap& state) const {
  for (size_t g = 0; g < m_steps.size() && g < groups.size(); ++g) {
    const std::vector<torch::Tensor>& params = groups[g].params();
    for (size_t i = 0; i < m_steps[g].size() && i < params.size(); ++i) {
      if (!m_steps[g][i].defined()) continue;
      const auto it = state.find(compat::optimizerStateKey<OptimizerStateMap>(params[i]));
      if (it == state.end()) continue;
      // The map is const, the states it owns are not: a save writes the device counts into them.
      auto& s = static_cast<State&>(*it->second);
      s.step(static_cast<int64_t>(std::llround(m_steps[g][i].item<double>())));
    }
  }
}

template <typename Options, typename State>
void AdamListStep<Options, State>::returnStepCounts(const Groups& groups, const OptimizerStateMap& state) {
  writeStepCounts(groups, state);
  forgetStepCounts();
}

template <typename Options, typename State>
void AdamListStep<Options, State>::appendDeviceTensors(std::vector<torch::Tensor>& into) const {
  into.insert(into.end(), m_lrs.tensors().begin(), m_lrs.tensors().end());
  for (const auto& group : m_steps) into.insert(into.end(), group.begin(), group.end());
}

template class AdamListStep<torch::optim::AdamOptions, torch::optim::AdamParamState>;
template class AdamListStep<torch::optim::AdamWOptions, torch::optim::AdamWParamState>;

}  // namespace wb
