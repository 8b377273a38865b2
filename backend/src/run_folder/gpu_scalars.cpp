#include "run_folder/gpu_scalars.h"

namespace wb {
namespace {

void appendFigures(std::vector<std::pair<std::string, double>>& scalars, const std::string& prefix,
                   const GpuFigures& g) {
  if (!g.sampled()) return;
  constexpr double kMiB = 1024.0 * 1024.0;
  const std::pair<const char*, double> figures[] = {
      {"utilization", g.utilization_pct},
      {"power_w", g.power_w},
      {"power_limit_w", g.power_limit_w},
      {"memory_used_mib", g.memory_used_bytes >= 0 ? static_cast<double>(g.memory_used_bytes) / kMiB : -1},
      {"memory_total_mib", g.memory_total_bytes >= 0 ? static_cast<double>(g.memory_total_bytes) / kMiB : -1},
      {"temperature_c", g.temperature_c},
      {"sm_clock_mhz", g.sm_clock_mhz}};
  for (const auto& [name, value] : figures) {
    if (value >= 0) scalars.emplace_back(prefix + name, value);
  }
}

}  // namespace

void appendGpuScalars(std::vector<std::pair<std::string, double>>& scalars, const StepMetrics& m) {
  if (m.devices.empty()) {
    appendFigures(scalars, "system/gpu0/", m.gpu);
    return;
  }
  for (const DeviceMetrics& d : m.devices) {
    appendFigures(scalars, "system/gpu" + std::to_string(d.rank) + "/", d.gpu);
  }
}

}  // namespace wb
