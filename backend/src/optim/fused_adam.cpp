#include "optim/fused_adam.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <memory>
#include <tuple>
#include <type_traits>

#include "optim/adam_update_kernel.h"
#include "optim/multi_tensor_step.h"
#include "torch_compat.h"

namespace wb {

namespace {

// The fused pass treats a tensor as `numel` floats from its data pointer, the same element at the same offset
// in the weights, the gradient and both moments: dense float32 CPU tensors with one layout.
bool denseCpuFloat(const torch::Tensor& t) {
  return t.defined() && t.layout() == torch::kStrided && t.device().is_cpu() &&
         t.scalar_type() == torch::kFloat && t.is_non_overlapping_and_dense();
}

bool sameLayout(const torch::Tensor& a, const torch::Tensor& b) {
  return denseCpuFloat(b) && a.sizes() == b.sizes() && a.strides() == b.strides();
}

template <typename Options>
bool groupFusable(const torch::optim::OptimizerParamGroup& group) {
  return !static_cast<const Options&>(group.options()).amsgrad();
}

template <typename State, typename StateMap>
const State* findState(const StateMap& state, const torch::Tensor& p) {
  const auto it = state.find(compat::optimizerStateKey<StateMap>(p));
  return it == state.end() ? nullptr : static_cast<const State*>(it->second.get());
}

// Every parameter with a gradient, its gradient and any state it already has (a checkpoint may bring moments
// laid out differently from the weights) fit the fused pass.
template <typename Options, typename State, typename StateMap>
bool stepFusable(const std::vector<torch::optim::OptimizerParamGroup>& groups, const StateMap& state) {
  for (const auto& group : groups) {
    if (!groupFusable<Options>(group)) return false;
    for (const torch::Tensor& p : group.params()) {
      const torch::Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      if (!denseCpuFloat(p) || !sameLayout(p, grad)) return false;
      if (const State* s = findState<State>(state, p)) {
        if (!sameLayout(p, s->exp_avg()) || !sameLayout(p, s->exp_avg_sq())) return false;
      }
    }
  }
  return true;
}

template <typename Options>
AdamUpdate updateFor(const Options& o, int64_t step, bool decoupled) {
  const double beta1 = std::get<0>(o.betas());
  const double beta2 = std::get<1>(o.betas());
  const double bias_correction1 = 1 - std::pow(beta1, static_cast<double>(step));
  const double bias_correction2 = 1 - std::pow(beta2, static_cast<double>(step));
  AdamUpdate u;
  if (o.weight_decay() != 0) {
    u.decoupled_decay = decoupled;
    u.weight_factor = static_cast<float>(1 - o.lr() * o.weight_decay());
    u.l2_decay = !decoupled;
    u.l2 = static_cast<float>(o.weight_decay());
  }
  u.beta1 = static_cast<float>(beta1);
  u.one_minus_beta1 = static_cast<float>(1 - beta1);
  u.beta2 = static_cast<float>(beta2);
  u.one_minus_beta2 = static_cast<float>(1 - beta2);
  u.bias_correction2_sqrt = static_cast<float>(std::sqrt(bias_correction2));
  u.eps = static_cast<float>(o.eps());
  u.neg_step_size = static_cast<float>(-(o.lr() / bias_correction1));
  return u;
}

void runFused(const AdamUpdate& u, const torch::Tensor& p, const torch::Tensor& grad,
              const torch::Tensor& exp_avg, const torch::Tensor& exp_avg_sq) {
  float* weights = p.data_ptr<float>();
  const float* grads = grad.data_ptr<float>();
  float* m = exp_avg.data_ptr<float>();
  float* v = exp_avg_sq.data_ptr<float>();
  // Element-wise with no reduction: any split across threads gives the same bits.
  at::parallel_for(0, p.numel(), at::internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
    adamUpdate(u, weights + begin, grads + begin, m + begin, v + begin, end - begin);
  });
}

template <typename Options, typename State, typename StateMap>
void fusedStep(std::vector<torch::optim::OptimizerParamGroup>& groups, StateMap& state, bool decoupled) {
  torch::NoGradGuard no_grad;
  for (auto& group : groups) {
    const auto& options = static_cast<const Options&>(group.options());
    for (const torch::Tensor& p : group.params()) {
      const torch::Tensor& grad = p.grad();
      if (!grad.defined()) continue;
      State& s = adamStateFor<State>(state, p);
      s.step(s.step() + 1);
      if (p.numel() == 0) continue;
      runFused(updateFor(options, s.step(), decoupled), p, grad, s.exp_avg(), s.exp_avg_sq());
    }
  }
}

template <typename Options>
bool parametersFusable(const torch::optim::Optimizer& optimizer) {
  for (const auto& group : optimizer.param_groups()) {
    if (!groupFusable<Options>(group)) return false;
    for (const torch::Tensor& p : group.params()) {
      if (!denseCpuFloat(p)) return false;
    }
  }
  return true;
}

}  // namespace

template <typename Base, typename Options, typename State>
StepPath FusedAdamOptimizer<Base, Options, State>::nextStepPath() const {
  const StepPath path = resolveStepPath(m_path, this->param_groups_, WB_HAS_FUSED_ADAM);
  if (path != StepPath::LibTorch &&
      !AdamListStep<Options, State>::covers(this->param_groups_, this->state_)) {
    return StepPath::LibTorch;
  }
  return path;
}

template <typename Base, typename Options, typename State>
torch::Tensor FusedAdamOptimizer<Base, Options, State>::step(torch::optim::Optimizer::LossClosure closure) {
  torch::Tensor loss;
  if (closure) {
    at::AutoGradMode enable_grad(true);
    loss = closure();
  }
  const StepPath path = nextStepPath();
  if (path == StepPath::Fused) {
    stageLearningRates();
    stepScaled({}, {});
    return loss;
  }
  // The other steps count on LibTorch's int64 step counts: bring them up to date (no-op when none are kept).
  m_lists.returnStepCounts(this->param_groups_, this->state_);
  constexpr bool decoupled = std::is_same_v<Options, torch::optim::AdamWOptions>;
  if (path == StepPath::Foreach) {
    m_lists.foreachStep(this->param_groups_, this->state_);
  } else if (m_path != StepPath::LibTorch && stepFusable<Options, State>(this->param_groups_, this->state_)) {
    fusedStep<Options, State>(this->param_groups_, this->state_, decoupled);
  } else {
    Base::step();
  }
  return loss;
}

template <typename Base, typename Options, typename State>
void FusedAdamOptimizer<Base, Options, State>::save(torch::serialize::OutputArchive& archive) const {
  m_lists.writeStepCounts(this->param_groups_, this->state_);
  Base::save(archive);
}

template <typename Base, typename Options, typename State>
void FusedAdamOptimizer<Base, Options, State>::load(torch::serialize::InputArchive& archive) {
  Base::load(archive);
  m_lists.forgetStepCounts();
}

template <typename Base, typename Options, typename State>
bool FusedAdamOptimizer<Base, Options, State>::stepsOnDevice() const {
  return nextStepPath() == StepPath::Fused;
}

template <typename Base, typename Options, typename State>
void FusedAdamOptimizer<Base, Options, State>::stageLearningRates() {
  m_lists.stageLearningRates(this->param_groups_);
}

template <typename Base, typename Options, typename State>
void FusedAdamOptimizer<Base, Options, State>::stepScaled(const torch::Tensor& grad_scale,
                                                          const torch::Tensor& found_inf) {
  TORCH_CHECK(stepsOnDevice(), "stepScaled: this optimizer's step does not run on the device");
  m_lists.fusedStep(this->param_groups_, this->state_, grad_scale, found_inf);
}

template <typename Base, typename Options, typename State>
std::vector<torch::Tensor> FusedAdamOptimizer<Base, Options, State>::graphTensors() const {
  std::vector<torch::Tensor> tensors;
  for (const auto& group : this->param_groups_) {
    for (const torch::Tensor& p : group.params()) {
      tensors.push_back(p);
      const State* s = findState<State>(this->state_, p);
      tensors.push_back(s != nullptr ? s->exp_avg() : torch::Tensor());
      tensors.push_back(s != nullptr ? s->exp_avg_sq() : torch::Tensor());
    }
  }
  m_lists.appendDeviceTensors(tensors);
  return tensors;
}

template class FusedAdamOptimizer<torch::optim::Adam, torch::optim::AdamOptions,
                                  torch::optim::AdamParamState>;
template class FusedAdamOptimizer<torch::optim::AdamW, torch::optim::AdamWOptions,
                                  torch::optim::AdamWParamState>;

bool takesFusedStep(const torch::optim::Optimizer& optimizer) {
  return !stepDescription(optimizer).empty();
}

std::string stepDescription(const torch::optim::Optimizer& optimizer) {
  const auto* ours = dynamic_cast<const ReportsStepPath*>(&optimizer);
  if (ours == nullptr) return "";
  switch (ours->nextStepPath()) {
    case StepPath::Fused:
      return groupsDevice(optimizer.param_groups()).is_cuda() ? "fused CUDA step" : "fused step";
    case StepPath::Foreach:
      return "foreach step";
    default:
      break;
  }
  if (dynamic_cast<const FusedAdamW*>(&optimizer)) {
    return parametersFusable<torch::optim::AdamWOptions>(optimizer) ? "fused CPU step" : "";
  }
  if (dynamic_cast<const FusedAdam*>(&optimizer)) {
    return parametersFusable<torch::optim::AdamOptions>(optimizer) ? "fused CPU step" : "";
  }
  return "";
}

}  // namespace wb
