#include "step/clip_grad_norm_part.h"

#include <algorithm>

#include "torch_compat.h"

namespace wb {

namespace {

// The gradients' norms in multi-tensor kernels (a few launches on CUDA, not one per gradient), as
// torch.nn.utils.clip_grad_norm_'s foreach path measures them; in float32, on the group's device.
torch::Tensor clipStackedNorms(const std::vector<torch::Tensor>& grads) {
  std::vector<torch::Tensor> norms = at::_foreach_norm(grads, 2.0);
  for (auto& norm : norms) norm = norm.to(torch::kFloat32);
  return torch::stack(norms);
}

void clipScaleGradients(std::vector<torch::Tensor> grads, const torch::Tensor& scale) {
#if WB_TORCH_AT_LEAST(2, 1)
  at::_foreach_mul_(grads, scale);  // the scale stays a device tensor: no host read
#else
  for (auto& grad : grads) grad.mul_(scale.to(grad.dtype()));  // 1.13 has no foreach multiply by a tensor
#endif
}

}  // namespace

std::vector<std::vector<torch::Tensor>> gradientsByDevice(const std::vector<torch::Tensor>& params) {
  std::vector<std::vector<torch::Tensor>> groups;
  for (const auto& p : params) {
    if (!p.grad().defined()) continue;
    const torch::Tensor grad = p.grad().detach();
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const auto& g) { return g.front().device() == grad.device(); });
    if (group == groups.end()) {
      groups.push_back({grad});
    } else {
      group->push_back(grad);
    }
  }
  return groups;
}

torch::Tensor clipGradientGroups(const std::vector<std::vector<torch::Tensor>>& groups, torch::Device home,
                                 double max_norm, const SumAcrossRanks& sum_across) {
  if (groups.empty() && !sum_across) return torch::zeros({});
  torch::Tensor total;
  if (sum_across || groups.size() > 1) {
    // A rank whose shard has no gradient still takes part in the sum.
    torch::Tensor squares = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat32).device(home));
    for (const auto& group : groups) squares = squares + clipStackedNorms(group).square().sum().to(home);
    if (sum_across) sum_across(squares);
    total = squares.sqrt();
    if (groups.empty()) return total;
  } else {
    total = clipStackedNorms(groups.front()).norm(2.0);
  }
  const torch::Tensor scale = (max_norm / (total + 1e-6)).clamp_max(1.0);
  for (const auto& group : groups) clipScaleGradients(group, scale.to(group.front().device()));
  return total;
}

torch::Tensor clipGradNorm(const std::vector<torch::Tensor>& params, double max_norm,
                           const SumAcrossRanks& sum_across) {
  const torch::Device home = params.empty() ? torch::Device(torch::kCPU) : params.front().device();
  return clipGradientGroups(gradientsByDevice(params), home, max_norm, sum_across);
}

ClipGradNormPart::ClipGradNormPart(std::vector<torch::Tensor> params, double max_norm)
    : m_params(std::move(params)), m_max_norm(max_norm) {}

void ClipGradNormPart::gradientsReady() {
  const torch::Tensor norm = clipGradNorm(m_params, m_max_norm, m_sum_across).to(torch::kFloat64);
  if (!m_norm_sum.defined()) {
    m_norm_sum = torch::zeros({}, norm.options());
    m_count = torch::zeros({}, norm.options());
    m_nonfinite = torch::zeros({}, norm.options());
  }
  // In place, on the device: no read per step. A step the loss scaler skips for an overflow has an inf or
  // NaN norm; it is counted apart, not summed, or one such step would make the whole window's mean inf.
  const torch::Tensor finite = torch::isfinite(norm);
  m_norm_sum.add_(norm.nan_to_num(0.0, 0.0, 0.0));
  m_count.add_(finite);
  m_nonfinite.add_(finite.logical_not());
}

GradNormWindow ClipGradNormPart::takeGradNorm() {
  if (!m_norm_sum.defined()) return {};
  const torch::Tensor all = torch::stack({m_norm_sum, m_count, m_nonfinite}).cpu();  // one read
  const auto v = all.accessor<double, 1>();
  GradNormWindow window;
  if (v[1] > 0) window.mean = v[0] / v[1];
  window.nonfinite = static_cast<int64_t>(v[2]);
  m_norm_sum.zero_();
  m_count.zero_();
  m_nonfinite.zero_();
  return window;
}

}  // namespace wb
