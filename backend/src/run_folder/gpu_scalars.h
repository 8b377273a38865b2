#pragma once
// The GPU's NVML figures as TensorBoard scalars, under system/gpu<rank>/ (rank 0's alone with one device):
// utilization, power and its limit, memory, temperature, SM clock. A figure not sampled writes no scalar,
// so TensorBoard draws a gap, never a zero.

#include <string>
#include <utility>
#include <vector>

#include "workbench/events.h"

namespace wb {

void appendGpuScalars(std::vector<std::pair<std::string, double>>& scalars, const StepMetrics& m);

}  // namespace wb
