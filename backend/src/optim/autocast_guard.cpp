#include "optim/autocast_guard.h"

#include <ATen/autocast_mode.h>

#include <stdexcept>

#include "torch_compat_autocast.h"

namespace wb {

AutocastGuard::AutocastGuard(c10::DeviceType device_type, c10::ScalarType dtype, bool enabled)
    : m_device_type(device_type), m_active(enabled) {
  if (!m_active) return;
  if (device_type != c10::DeviceType::CPU && device_type != c10::DeviceType::CUDA) {
    throw std::invalid_argument("autocast: only CPU and CUDA are supported");
  }
  if (device_type == c10::DeviceType::CPU && dtype != c10::ScalarType::BFloat16) {
    throw std::invalid_argument("autocast on the CPU supports bf16 only");
  }
  if (dtype != c10::ScalarType::BFloat16 && dtype != c10::ScalarType::Half) {
    throw std::invalid_argument("autocast dtype must be bf16 or fp16");
  }
  m_prev_enabled = compat::autocastEnabled(device_type);
  m_prev_dtype = compat::autocastDtype(device_type);
  compat::setAutocastDtype(device_type, dtype);
  compat::setAutocastEnabled(device_type, true);
  at::autocast::increment_nesting();
}

AutocastGuard::~AutocastGuard() {
  if (!m_active) return;
  // As torch.autocast.__exit__: the cache of casted weights lives until the outermost region ends.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  compat::setAutocastEnabled(m_device_type, m_prev_enabled);
  compat::setAutocastDtype(m_device_type, m_prev_dtype);
}

bool AutocastGuard::isEnabled(c10::DeviceType device_type) {
  return compat::autocastEnabled(device_type);
}

std::optional<c10::ScalarType> autocastDtype(Precision amp) {
  switch (amp) {
    case Precision::Bf16:
      return c10::ScalarType::BFloat16;
    case Precision::Fp16:
      return c10::ScalarType::Half;
    case Precision::Off:
      break;
  }
  return std::nullopt;
}

}  // namespace wb
