#pragma once
// Autocast's thread-local switches, 1.13 against 2.x: torch_compat.h's sibling, kept apart because
// ATen/autocast_mode.h is more than most translation units need.
//   1.13 .. 2.3: set_enabled / set_cpu_enabled, set_autocast_gpu_dtype / set_autocast_cpu_dtype.
//   2.4+:        set_autocast_enabled(DeviceType, bool), set_autocast_dtype(DeviceType, ScalarType); the old
//                names are deprecated wrappers there.

#include <ATen/autocast_mode.h>

#include "torch_compat.h"

namespace wb::compat {

#if WB_TORCH_AT_LEAST(2, 4)

inline bool autocastEnabled(c10::DeviceType device) {
  return at::autocast::is_autocast_enabled(device);
}
inline void setAutocastEnabled(c10::DeviceType device, bool enabled) {
  at::autocast::set_autocast_enabled(device, enabled);
}
inline c10::ScalarType autocastDtype(c10::DeviceType device) {
  return at::autocast::get_autocast_dtype(device);
}
inline void setAutocastDtype(c10::DeviceType device, c10::ScalarType dtype) {
  at::autocast::set_autocast_dtype(device, dtype);
}

#else

inline bool autocastEnabled(c10::DeviceType device) {
  return device == c10::DeviceType::CUDA ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled();
}
inline void setAutocastEnabled(c10::DeviceType device, bool enabled) {
  if (device == c10::DeviceType::CUDA) {
    at::autocast::set_enabled(enabled);
  } else {
    at::autocast::set_cpu_enabled(enabled);
  }
}
inline c10::ScalarType autocastDtype(c10::DeviceType device) {
  return device == c10::DeviceType::CUDA ? at::autocast::get_autocast_gpu_dtype()
                                         : at::autocast::get_autocast_cpu_dtype();
}
inline void setAutocastDtype(c10::DeviceType device, c10::ScalarType dtype) {
  if (device == c10::DeviceType::CUDA) {
    at::autocast::set_autocast_gpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_cpu_dtype(dtype);
  }
}

#endif

}  // namespace wb::compat
