#include "step/clip_grad_norm_part.h"

namespace wb {

torch::Tensor clipGradNorm(const std::vector<torch::Tensor>& params, double max_norm) {
  std::vector<torch::Tensor> norms;
  norms.reserve(params.size());
  for (const auto& p : params) {
    if (p.grad().defined()) norms.push_back(p.grad().detach().norm(2.0).to(torch::kFloat32));
  }
  if (norms.empty()) return torch::zeros({});
  auto total = torch::stack(norms).norm(2.0);
  auto scale = (max_norm / (total + 1e-6)).clamp_max(1.0);
  for (const auto& p : params) {
    if (p.grad().defined()) p.grad().detach().mul_(scale.to(p.grad().dtype()));
  }
  return total;
}

ClipGradNormPart::ClipGradNormPart(std::vector<torch::Tensor> params, double max_norm)
    : m_params(std::move(params)), m_max_norm(max_norm) {}

void ClipGradNormPart::gradientsReady() {
  const torch::Tensor norm = clipGradNorm(m_params, m_max_norm);
  if (!m_norm_sum.defined()) m_norm_sum = torch::zeros({}, norm.options().dtype(torch::kFloat64));
  m_norm_sum.add_(norm);  // in place, on the device: no allocation and no read per step
  ++m_count;
}

std::optional<double> ClipGradNormPart::takeGradNorm() {
  if (m_count == 0) return std::nullopt;
  const double mean = m_norm_sum.item<double>() / static_cast<double>(m_count);
  m_norm_sum.zero_();
  m_count = 0;
  return mean;
}

}  // namespace wb
