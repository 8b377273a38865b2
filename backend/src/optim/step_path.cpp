#include "optim/step_path.h"

#include "optim/multi_tensor_step.h"

namespace wb {

namespace {

bool floating(const torch::Tensor& t) {
  const auto type = t.scalar_type();
  return type == torch::kFloat || type == torch::kHalf || type == torch::kBFloat16;
}

// The fused kernels walk a parameter, its gradient and its state as `numel` elements from their data
// pointers: one dense layout for all of them.
bool fits(const torch::Tensor& p, const torch::Tensor& first) {
  if (p.layout() != torch::kStrided || !p.is_non_overlapping_and_dense()) return false;
  if (p.device() != first.device() || p.scalar_type() != first.scalar_type() || !floating(p)) return false;
  const torch::Tensor& grad = p.grad();
  if (!grad.defined()) return true;
  return grad.layout() == torch::kStrided && grad.device() == p.device() &&
         grad.scalar_type() == p.scalar_type() && grad.sizes() == p.sizes() && grad.strides() == p.strides();
}

}  // namespace

bool listUpdatable(const std::vector<torch::optim::OptimizerParamGroup>& groups) {
  const torch::Tensor* first = nullptr;
  for (const auto& group : groups) {
    for (const torch::Tensor& p : group.params()) {
      if (first == nullptr) first = &p;
      if (!fits(p, *first)) return false;
    }
  }
  return true;
}

torch::Device groupsDevice(const std::vector<torch::optim::OptimizerParamGroup>& groups) {
  for (const auto& group : groups) {
    if (!group.params().empty()) return group.params().front().device();
  }
  return torch::kCPU;
}

void StagedLearningRates::stage(const std::vector<torch::optim::OptimizerParamGroup>& groups) {
  m_tensors.resize(groups.size());
  m_values.resize(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].params().empty()) continue;
    const torch::Device device = groups[g].params().front().device();
    const double lr = groups[g].options().get_lr();
    if (!m_tensors[g].defined() || m_tensors[g].device() != device) {
      m_tensors[g] = torch::empty({}, torch::TensorOptions().dtype(torch::kFloat).device(device));
    } else if (m_values[g] == lr) {
      continue;
    }
    m_tensors[g].fill_(lr);
    m_values[g] = lr;
  }
}

StepPath resolveStepPath(StepPath requested, const std::vector<torch::optim::OptimizerParamGroup>& groups,
                         bool has_fused_kernel) {
  if (requested == StepPath::LibTorch || !listUpdatable(groups)) return StepPath::LibTorch;
  const bool cuda = groupsDevice(groups).is_cuda();
  switch (requested) {
    case StepPath::Auto:
      if (!cuda) return StepPath::LibTorch;
      return has_fused_kernel ? StepPath::Fused : StepPath::Foreach;
    case StepPath::Fused:
      return has_fused_kernel && (cuda || WB_HAS_FUSED_CPU_KERNELS) ? StepPath::Fused : StepPath::Foreach;
    default:
      return requested;
  }
}

}  // namespace wb
