#pragma once
#include <cstdint>

namespace wb {

// Resident set size of this process, from /proc/self/statm; 0 where unavailable.
int64_t currentRssBytes();

}  // namespace wb
