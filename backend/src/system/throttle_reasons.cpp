#include "system/throttle_reasons.h"

#include <array>
#include <utility>

namespace wb {

std::vector<ThrottleReason> throttleReasonsFromBits(uint64_t bits) {
  // nvml.h's nvmlClocksEventReason* / nvmlClocksThrottleReason* values (the same bits under both names).
  static constexpr std::array<std::pair<uint64_t, ThrottleReason>, 9> kBits{{
      {0x1, ThrottleReason::Idle},
      {0x2, ThrottleReason::AppClocks},
      {0x4, ThrottleReason::SwPowerCap},
      {0x8, ThrottleReason::HwSlowdown},
      {0x10, ThrottleReason::SyncBoost},
      {0x20, ThrottleReason::SwThermal},
      {0x40, ThrottleReason::HwThermal},
      {0x80, ThrottleReason::HwPowerBrake},
      {0x100, ThrottleReason::DisplayClocks},
  }};
  std::vector<ThrottleReason> reasons;
  for (const auto& [bit, reason] : kBits) {
    if (bits & bit) reasons.push_back(reason);
  }
  return reasons;
}

}  // namespace wb
