#pragma once
// NVML's clocks event (throttle) reason bits as words for the metrics.

#include <cstdint>
#include <vector>

#include "workbench/gpu_figures.h"

namespace wb {

// The reasons set in `bits` (nvmlClocksEventReason*), in ThrottleReason's order; bits NVML may add later are
// left out.
std::vector<ThrottleReason> throttleReasonsFromBits(uint64_t bits);

}  // namespace wb
