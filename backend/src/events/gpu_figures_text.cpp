#include <cmath>

#include "workbench/gpu_figures.h"

namespace wb {
namespace {

// "87% 312W", "87%" where the board reports no power, "" when not sampled.
std::string busyAndPower(const GpuFigures& f) {
  if (!f.sampled() || f.utilization_pct < 0) return {};
  std::string text = std::to_string(std::lround(f.utilization_pct)) + "%";
  if (f.power_w >= 0) text += " " + std::to_string(std::lround(f.power_w)) + "W";
  return text;
}

}  // namespace

std::string gpuBrief(const GpuFigures& f) {
  const std::string figures = busyAndPower(f);
  return figures.empty() ? figures : "gpu " + figures;
}

std::string gpuBrief(const std::vector<GpuFigures>& gpus) {
  std::string joined;
  bool any_sampled = false;
  for (const GpuFigures& f : gpus) {
    const std::string figures = busyAndPower(f);
    any_sampled = any_sampled || !figures.empty();
    // A GPU not sampled keeps its place, so the n-th figures stay the n-th device's.
    joined += (joined.empty() ? "" : " | ") + (figures.empty() ? std::string("--") : figures);
  }
  return any_sampled ? "gpu " + joined : "";
}

}  // namespace wb
