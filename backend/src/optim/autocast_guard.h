#pragma once
// Autocast (mixed precision) for one device type on the current thread, for the lifetime of the guard: the
// RAII form of Python's `with torch.autocast(device_type, dtype):`. Autocast state is thread-local, so the
// guard belongs on the thread that runs the forward pass. On exit the previous state (enabled flag and
// dtype) comes back and, when the outermost autocast region ends, the cache of casted weights is cleared.
//
// Scope it around the forward pass and the loss only; backward runs outside it (as in PyTorch's recipes),
// its ops taking the dtypes autocast chose for the forward.

#include <torch/torch.h>

#include <optional>
#include <string>

#include "workbench/experiment.h"

namespace wb {

class AutocastGuard {
 public:
  // device_type: kCPU (dtype kBFloat16) or kCUDA (kBFloat16 or kHalf). enabled=false: a no-op guard, so one
  // code path serves amp "off" too.
  AutocastGuard(c10::DeviceType device_type, c10::ScalarType dtype, bool enabled = true);
  ~AutocastGuard();
  AutocastGuard(const AutocastGuard&) = delete;
  AutocastGuard& operator=(const AutocastGuard&) = delete;

  // Whether autocast is on for that device type on this thread (for tests and asserts).
  static bool isEnabled(c10::DeviceType device_type);

 private:
  c10::DeviceType m_device_type;
  bool m_active;
  bool m_prev_enabled = false;
  c10::ScalarType m_prev_dtype = c10::ScalarType::Undefined;
};

// "bf16" → kBFloat16, "fp16" → kHalf; anything else (such as "off") → nullopt.
std::optional<c10::ScalarType> autocastDtype(Precision amp);

}  // namespace wb
