// The progress line's GPU figures (cli/progress_printer.cpp) on StepMetrics made by hand: rank 0's GPU with
// one device, each device's with several, and nothing where no GPU was sampled.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "progress_printer.h"

namespace {

using wb::DeviceMetrics;
using wb::GpuFigures;
using wb::StepMetrics;

GpuFigures sampledGpu(double busy_pct, double power_w) {
  GpuFigures gpu;
  gpu.not_sampled.clear();
  gpu.samples = 5;
  gpu.utilization_pct = busy_pct;
  gpu.power_w = power_w;
  return gpu;
}

StepMetrics stepOf(const std::vector<GpuFigures>& device_gpus) {
  StepMetrics m;
  m.step = 10;
  m.epoch = 1;
  m.total_steps = 100;
  m.loss = 0.5;
  m.lr = 0.01;
  m.samples_per_sec = 1000;
  m.eta_s = 60;
  if (!device_gpus.empty()) m.gpu = device_gpus.front();  // StepMetrics::gpu is rank 0's
  if (device_gpus.size() > 1) {
    for (size_t rank = 0; rank < device_gpus.size(); ++rank) {
      DeviceMetrics device;
      device.rank = static_cast<int64_t>(rank);
      device.device = "cuda:" + std::to_string(rank);
      device.gpu = device_gpus[rank];
      m.devices.push_back(device);
    }
  }
  return m;
}

// What the printer writes for one step: as plain lines (a log file) or as the terminal's bar.
std::string printed(const StepMetrics& m, bool interactive) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = ::open_memstream(&buffer, &size);
  {
    wb::cli::ProgressPrinter printer(out, interactive, 2);
    printer.print(wb::EventBatch{m});
    printer.finish();
  }
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

TEST(ProgressLine, OneDeviceShowsItsGpuWhenSampled) {
  const StepMetrics m = stepOf({sampledGpu(86.6, 311.7)});
  const std::string plain = printed(m, false);
  EXPECT_NE(plain.find("samples/s gpu 87% 312W ETA"), std::string::npos) << plain;
  const std::string bar = printed(m, true);
  EXPECT_NE(bar.find("samples/s  gpu 87% 312W  ETA"), std::string::npos) << bar;
  EXPECT_EQ((plain + bar).find("|"), std::string::npos);
}

TEST(ProgressLine, OneDeviceNotSampledShowsNoGpu) {
  const std::string line = printed(stepOf({GpuFigures{}}), false);
  EXPECT_EQ(line.find("gpu"), std::string::npos) << line;
  EXPECT_NE(line.find("samples/s ETA"), std::string::npos) << line;
}

TEST(ProgressLine, TwoDevicesShowEachGpuInRankOrder) {
  const StepMetrics m = stepOf({sampledGpu(87, 312), sampledGpu(85.2, 305)});
  const std::string plain = printed(m, false);
  EXPECT_NE(plain.find("samples/s gpu 87% 312W | 85% 305W ETA"), std::string::npos) << plain;
  const std::string bar = printed(m, true);
  EXPECT_NE(bar.find("samples/s  gpu 87% 312W | 85% 305W  ETA"), std::string::npos) << bar;
}

TEST(ProgressLine, TwoDevicesKeepTheirPlacesWhenOneIsNotSampled) {
  GpuFigures no_power = sampledGpu(40, -1);  // a board that reports no power
  const std::string line = printed(stepOf({GpuFigures{}, no_power}), false);
  EXPECT_NE(line.find("samples/s gpu -- | 40% ETA"), std::string::npos) << line;
}

TEST(ProgressLine, TwoDevicesNotSampledShowNoGpu) {
  GpuFigures cpu_rank;
  cpu_rank.not_sampled = "CPU run";
  const std::string line = printed(stepOf({cpu_rank, cpu_rank}), false);
  EXPECT_EQ(line.find("gpu"), std::string::npos) << line;
}

}  // namespace
