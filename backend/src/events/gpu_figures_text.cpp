#include <cmath>

#include "workbench/gpu_figures.h"

namespace wb {

std::string gpuBrief(const GpuFigures& f) {
  if (!f.sampled() || f.utilization_pct < 0) return {};
  std::string text = "gpu " + std::to_string(std::lround(f.utilization_pct)) + "%";
  if (f.power_w >= 0) text += " " + std::to_string(std::lround(f.power_w)) + "W";
  return text;
}

}  // namespace wb
