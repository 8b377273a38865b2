#include "optim/grad_scaler.h"

#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "optim/device_step.h"

namespace wb {
namespace {

std::vector<torch::Tensor> gradients(torch::optim::Optimizer& optimizer) {
  std::vector<torch::Tensor> grads;
  for (auto& group : optimizer.param_groups()) {
    for (auto& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (p.grad().scalar_type() == torch::kHalf) {
        // torch.cuda.amp.GradScaler refuses these too: fp16 master weights lose updates below 2^-24.
        throw std::invalid_argument(
            "GradScaler: attempting to unscale FP16 gradients; keep the weights in float32");
      }
      if (p.grad().is_sparse()) {
        throw std::invalid_argument("GradScaler: sparse gradients are not supported");
      }
      grads.push_back(p.grad());
    }
  }
  return grads;
}

}  // namespace

nlohmann::json GradScalerState::toJson() const {
  return {{"scale", scale},
          {"growth_tracker", growth_tracker},
          {"growth_factor", growth_factor},
          {"backoff_factor", backoff_factor},
          {"growth_interval", growth_interval},
          {"skipped_steps", skipped_steps}};
}

GradScalerState GradScalerState::fromJson(const nlohmann::json& j) {
  GradScalerState s;
  s.scale = j.at("scale").get<double>();
  s.growth_tracker = j.at("growth_tracker").get<int64_t>();
  s.growth_factor = j.value("growth_factor", s.growth_factor);
  s.backoff_factor = j.value("backoff_factor", s.backoff_factor);
  s.growth_interval = j.value("growth_interval", s.growth_interval);
  s.skipped_steps = j.value("skipped_steps", int64_t{0});
  return s;
}

GradScaler::GradScaler(GradScalerOptions options) : m_options(options), m_init_scale(options.init_scale) {
  if (!(m_options.growth_factor > 1.0)) throw std::invalid_argument("GradScaler: growth_factor must be > 1");
  if (!(m_options.backoff_factor < 1.0))
    throw std::invalid_argument("GradScaler: backoff_factor must be < 1");
  if (m_options.growth_interval < 1) throw std::invalid_argument("GradScaler: growth_interval must be >= 1");
}

void GradScaler::ensureScale(const torch::Device& device) {
  if (m_scale.defined()) return;
  const auto on = torch::TensorOptions().device(device);
  m_scale = torch::full({1}, m_init_scale, on.dtype(torch::kFloat32));
  m_growth_tracker = torch::full({1}, m_init_growth_tracker, on.dtype(torch::kInt32));
  m_found_inf = torch::zeros({1}, on.dtype(torch::kFloat32));
  m_skipped_steps = torch::full({}, static_cast<double>(m_init_skipped_steps), on.dtype(torch::kFloat64));
}

torch::Tensor GradScaler::scale(const torch::Tensor& loss) {
  if (!m_options.enabled) return loss;
  ensureScale(loss.device());
  // torch multiplies by the 1-element scale too: the product is float32 whatever the loss's dtype.
  return loss * m_scale.to(loss.device(), /*non_blocking=*/true);
}

void GradScaler::checkAndUnscale(torch::optim::Optimizer& optimizer, const torch::Tensor& inv_scale) {
  m_found_inf.zero_();  // in place: a captured step keeps writing where the graph was recorded
  const std::vector<torch::Tensor> grads = gradients(optimizer);
  for (const auto& g : grads) {
    if (g.device() != m_scale.device()) {
      throw std::invalid_argument("GradScaler: gradients on " + g.device().str() + " but the loss on " +
                                  m_scale.device().str() + "; one scaler serves one device");
    }
  }
  if (m_scale.is_cuda()) {
    // The fused kernel wants one dtype per call.
    std::map<torch::ScalarType, std::vector<torch::Tensor>> by_dtype;
    for (const auto& g : grads) by_dtype[g.scalar_type()].push_back(g);
    for (auto& entry : by_dtype) {
      at::_amp_foreach_non_finite_check_and_unscale_(entry.second, m_found_inf, inv_scale);
    }
  } else if (!grads.empty()) {
    // Same semantics as the kernel: found_inf = 1 when any element is inf/NaN (checked before scaling),
    // every gradient multiplied by inv_scale. No host read.
    std::vector<torch::Tensor> finite;
    finite.reserve(grads.size());
    const torch::Tensor inv = inv_scale.reshape({});
    for (const auto& g : grads) {
      finite.push_back(torch::isfinite(g).all());
      g.mul_(inv);
    }
    m_found_inf.copy_(torch::logical_not(torch::stack(finite).all()).to(torch::kFloat32).reshape({1}));
  }
  m_checked = true;
}

void GradScaler::unscale(torch::optim::Optimizer& optimizer) {
  if (!m_options.enabled) return;
  if (m_stage == Stage::Unscaled) {
    throw std::logic_error("GradScaler: unscale() has already been called since the last update()");
  }
  if (m_stage == Stage::Stepped) throw std::logic_error("GradScaler: unscale() is being called after step()");
  if (!m_scale.defined()) throw std::logic_error("GradScaler: unscale() before any scale(loss)");
  // As torch: the reciprocal in double, then float32.
  checkAndUnscale(optimizer, m_scale.to(torch::kFloat64).reciprocal().to(torch::kFloat32));
  m_stage = Stage::Unscaled;
}

void GradScaler::step(torch::optim::Optimizer& optimizer) {
  if (!m_options.enabled) {
    optimizer.step();
    return;
  }
  if (m_stage == Stage::Stepped)
    throw std::logic_error("GradScaler: step() has already been called since the last update()");
  auto* device_step = dynamic_cast<DeviceStep*>(&optimizer);
  if (device_step && device_step->stepsOnDevice()) {
    // torch's path for optimizers that support amp scaling: the kernels unscale (when unscale() was not
    // called: found_inf is then only checked here) and skip on found_inf themselves.
    torch::Tensor grad_scale;
    if (m_stage == Stage::Ready) {
      if (!m_scale.defined()) throw std::logic_error("GradScaler: step() before any scale(loss)");
      checkAndUnscale(optimizer, torch::ones_like(m_scale));
      grad_scale = m_scale;
    }
    device_step->stepScaled(grad_scale, m_found_inf);
  } else {
    if (m_stage == Stage::Ready) unscale(optimizer);
    // The one host synchronization per step, as in torch's _maybe_opt_step.
    if (m_found_inf.item<float>() == 0.0f) optimizer.step();
  }
  m_skipped_steps.add_(m_found_inf.reshape({}));
  m_stage = Stage::Stepped;
}

void GradScaler::update() {
  if (!m_options.enabled) return;
  if (!m_checked) throw std::logic_error("GradScaler: no inf checks were recorded prior to update()");
  const double growth = m_options.growth_factor;
  const double backoff = m_options.backoff_factor;
  const int64_t interval = m_options.growth_interval;
  if (m_scale.is_cuda()) {
    at::_amp_update_scale_(m_scale, m_growth_tracker, m_found_inf, growth, backoff, interval);
  } else {
    // at::_amp_update_scale_ with its arithmetic: the products in double, stored as float32; a grown scale
    // that is no longer finite is not taken (but the tracker still resets).
    const torch::Tensor overflow = m_found_inf != 0;
    const torch::Tensor successful = m_growth_tracker + 1;
    const torch::Tensor at_interval = successful == interval;
    const torch::Tensor scale64 = m_scale.to(torch::kFloat64);
    const torch::Tensor grown = (scale64 * growth).to(torch::kFloat32);
    const torch::Tensor backed_off = (scale64 * backoff).to(torch::kFloat32);
    const torch::Tensor new_scale = torch::where(
        overflow, backed_off, torch::where(at_interval.logical_and(torch::isfinite(grown)), grown, m_scale));
    const torch::Tensor new_tracker =
        torch::where(overflow.logical_or(at_interval), torch::zeros_like(successful), successful);
    m_scale.copy_(new_scale);
    m_growth_tracker.copy_(new_tracker);
  }
  m_checked = false;
  m_stage = Stage::Ready;
}

int64_t GradScaler::skippedSteps() const {
  if (!m_skipped_steps.defined()) return m_init_skipped_steps;
  return static_cast<int64_t>(m_skipped_steps.item<double>());
}

bool GradScaler::lastStepSkipped() const {
  return m_options.enabled && m_found_inf.defined() && m_found_inf.item<float>() != 0.0f;
}

double GradScaler::currentScale() const {
  if (!m_options.enabled) return 1.0;
  return m_scale.defined() ? static_cast<double>(m_scale.item<float>()) : m_init_scale;
}

GradScalerState GradScaler::state() const {
  GradScalerState s;
  s.scale = currentScale();
  s.growth_tracker = m_growth_tracker.defined() ? static_cast<int64_t>(m_growth_tracker.item<int32_t>())
                                                : m_init_growth_tracker;
  s.growth_factor = m_options.growth_factor;
  s.backoff_factor = m_options.backoff_factor;
  s.growth_interval = m_options.growth_interval;
  s.skipped_steps = skippedSteps();
  return s;
}

void GradScaler::loadState(const GradScalerState& s) {
  if (!m_options.enabled) return;
  m_init_scale = s.scale;
  m_init_growth_tracker = s.growth_tracker;
  m_options.growth_factor = s.growth_factor;
  m_options.backoff_factor = s.backoff_factor;
  m_options.growth_interval = s.growth_interval;
  m_init_skipped_steps = s.skipped_steps;
  if (m_scale.defined()) {
    m_scale.fill_(s.scale);
    m_growth_tracker.fill_(s.growth_tracker);
    m_skipped_steps.fill_(static_cast<double>(s.skipped_steps));
  }
}

}  // namespace wb
