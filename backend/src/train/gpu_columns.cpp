#include "train/gpu_columns.h"

#include <string>

namespace wb {
namespace {

// Prefixed: metrics_window.cpp's columns (Samples, ...) share its unity translation unit.
enum GpuColumn {
  kGpuSampled,
  kGpuSamples,
  kGpuUtilization,
  kGpuMemoryUsed,
  kGpuMemoryTotal,
  kGpuPower,
  kGpuPowerLimit,
  kGpuTemperature,
  kGpuClock,
  kGpuReasons
};
static_assert(kGpuReasons + 1 == kGpuColumns);

// Throttle reasons as bits by their place in the word table (exact in a float64).
double reasonBits(const std::vector<ThrottleReason>& reasons) {
  uint64_t bits = 0;
  const auto& table = Words<ThrottleReason>::table;
  for (ThrottleReason r : reasons) {
    for (size_t i = 0; i < table.size(); ++i) {
      if (table[i].value == r) bits |= uint64_t{1} << i;
    }
  }
  return static_cast<double>(bits);
}

}  // namespace

GpuFigures windowGpuFigures(GpuSampler* sampler, const torch::Device& device) {
  GpuFigures figures;
  if (!device.is_cuda()) {
    figures.not_sampled = "CPU run";
  } else if (!sampler) {
    figures.not_sampled = "not sampled (no GPU sampler in this run)";
  } else {
    figures = sampler->take(device.index() < 0 ? 0 : device.index());
  }
  return figures;
}

torch::Tensor gpuColumns(const GpuFigures& f, const torch::TensorOptions& options) {
  const std::vector<double> values{f.sampled() ? 1.0 : 0.0,
                                   static_cast<double>(f.samples),
                                   f.utilization_pct,
                                   static_cast<double>(f.memory_used_bytes),
                                   static_cast<double>(f.memory_total_bytes),
                                   f.power_w,
                                   f.power_limit_w,
                                   f.temperature_c,
                                   f.sm_clock_mhz,
                                   reasonBits(f.throttle_reasons)};
  // Filled on the device as the window's other columns are (a copy from pageable memory would wait for it).
  std::vector<torch::Tensor> columns;
  for (double v : values) columns.push_back(torch::scalar_tensor(v, options));
  return torch::stack(columns);
}

GpuFigures gpuFiguresFromColumns(const double* c, int64_t rank, bool cpu_rank) {
  GpuFigures f;
  if (c[kGpuSampled] == 0) {
    f.not_sampled = cpu_rank ? "CPU run" : "not sampled on rank " + std::to_string(rank) + " (see its log)";
    return f;
  }
  f.not_sampled.clear();
  f.samples = static_cast<int64_t>(c[kGpuSamples]);
  f.utilization_pct = c[kGpuUtilization];
  f.memory_used_bytes = static_cast<int64_t>(c[kGpuMemoryUsed]);
  f.memory_total_bytes = static_cast<int64_t>(c[kGpuMemoryTotal]);
  f.power_w = c[kGpuPower];
  f.power_limit_w = c[kGpuPowerLimit];
  f.temperature_c = c[kGpuTemperature];
  f.sm_clock_mhz = c[kGpuClock];
  const auto bits = static_cast<uint64_t>(c[kGpuReasons]);
  const auto& table = Words<ThrottleReason>::table;
  for (size_t i = 0; i < table.size(); ++i) {
    if (bits & (uint64_t{1} << i)) f.throttle_reasons.push_back(table[i].value);
  }
  return f;
}

}  // namespace wb
