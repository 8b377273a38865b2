#include "run_folder/stage_memory_scalars.h"

namespace wb {

void appendStageMemoryScalars(std::vector<std::pair<std::string, double>>& scalars, const StepMetrics& m) {
  constexpr double kMiB = 1024.0 * 1024.0;
  for (const DeviceMetrics& d : m.devices) {
    if (d.stages.empty() || d.cuda_allocated_bytes < 0) continue;
    const std::string prefix = "memory/" + d.device + "/";
    scalars.emplace_back(prefix + "cuda_allocated_mib", static_cast<double>(d.cuda_allocated_bytes) / kMiB);
    scalars.emplace_back(prefix + "cuda_reserved_mib", static_cast<double>(d.cuda_reserved_bytes) / kMiB);
    scalars.emplace_back(prefix + "cuda_peak_mib", static_cast<double>(d.cuda_peak_bytes) / kMiB);
  }
}

}  // namespace wb
