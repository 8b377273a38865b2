// The GPU's NVML figures in a run's step metrics: a CPU run says "CPU run" in its events and metrics.jsonl
// and writes no system/ scalar; sampled figures travel through the window's gather and become TensorBoard's
// system/gpu<rank>/ scalars, read back by TensorBoard's own reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include "run_folder/gpu_scalars.h"
#include "support/pypi_tools.h"
#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "train/gpu_columns.h"
#include "util/tensorboard_writer.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

GpuFigures busyGpu() {
  GpuFigures g;
  g.not_sampled.clear();
  g.samples = 5;
  g.utilization_pct = 87;
  g.memory_used_bytes = 3ll << 30;
  g.memory_total_bytes = 80ll << 30;
  g.power_w = 312;
  g.power_limit_w = 400;
  g.temperature_c = 71;
  g.sm_clock_mhz = 1980;
  g.throttle_reasons = {ThrottleReason::SwPowerCap, ThrottleReason::HwThermal};
  return g;
}

TEST(GpuMetrics, ACpuRunSaysSoAndWritesNoGpuFigure) {
  const std::string runs = test::freshDir("gpu-metrics-cpu");
  std::vector<StepMetrics> steps;
  std::mutex mutex;
  const RunSummary summary = trainBlocking(test::smallMlpExperiment(runs), [&](EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Event& ev : batch) {
      if (const auto* m = std::get_if<StepMetrics>(&ev)) steps.push_back(*m);
    }
  });
  ASSERT_EQ(summary.status, RunStatus::Completed);
  ASSERT_FALSE(steps.empty());
  for (const StepMetrics& m : steps) {
    EXPECT_EQ(m.gpu.not_sampled, "CPU run");
    EXPECT_EQ(m.gpu.utilization_pct, -1);
  }
  std::ifstream lines(summary.run_dir + "/metrics.jsonl");
  int64_t step_lines = 0;
  for (std::string line; std::getline(lines, line);) {
    const json j = json::parse(line);
    if (j.value("event", "") != "step") continue;
    ++step_lines;
    EXPECT_EQ(j["gpu"], json({{"not_sampled", "CPU run"}})) << line;
  }
  EXPECT_EQ(step_lines, static_cast<int64_t>(steps.size()));
  fs::remove_all(runs);
}

TEST(GpuMetrics, EveryRanksFiguresTravelThroughTheWindowsGather) {
  const auto options = torch::TensorOptions().dtype(torch::kFloat64);
  const torch::Tensor columns = gpuColumns(busyGpu(), options).contiguous();
  ASSERT_EQ(columns.numel(), kGpuColumns);
  const GpuFigures back = gpuFiguresFromColumns(columns.data_ptr<double>(), 1, false);
  EXPECT_TRUE(back.sampled());
  EXPECT_EQ(back.samples, 5);
  EXPECT_DOUBLE_EQ(back.utilization_pct, 87);
  EXPECT_EQ(back.memory_used_bytes, 3ll << 30);
  EXPECT_EQ(back.memory_total_bytes, 80ll << 30);
  EXPECT_DOUBLE_EQ(back.power_w, 312);
  EXPECT_DOUBLE_EQ(back.power_limit_w, 400);
  EXPECT_DOUBLE_EQ(back.temperature_c, 71);
  EXPECT_DOUBLE_EQ(back.sm_clock_mhz, 1980);
  EXPECT_EQ(back.throttle_reasons, busyGpu().throttle_reasons);

  GpuFigures none;
  none.not_sampled = "no NVML: cannot load libnvidia-ml.so.1";
  const torch::Tensor empty = gpuColumns(none, options).contiguous();
  const GpuFigures other = gpuFiguresFromColumns(empty.data_ptr<double>(), 1, false);
  EXPECT_EQ(other.not_sampled, "not sampled on rank 1 (see its log)");
  EXPECT_EQ(other.utilization_pct, -1);
  EXPECT_EQ(gpuFiguresFromColumns(empty.data_ptr<double>(), 2, true).not_sampled, "CPU run");
  EXPECT_EQ(windowGpuFigures(nullptr, torch::Device(torch::kCPU)).not_sampled, "CPU run");
}

TEST(GpuMetrics, SampledFiguresBecomeSystemScalarsInTensorBoard) {
  ASSERT_PYPI_TOOLS();
  StepMetrics one;
  one.step = 40;
  one.gpu = busyGpu();
  one.gpu.power_w = -1;  // not reported by this board: no scalar, not a zero
  std::vector<std::pair<std::string, double>> scalars;
  appendGpuScalars(scalars, one);
  std::map<std::string, double> tags(scalars.begin(), scalars.end());
  EXPECT_EQ(tags.size(), 6u);
  EXPECT_DOUBLE_EQ(tags["system/gpu0/utilization"], 87);
  EXPECT_DOUBLE_EQ(tags["system/gpu0/memory_used_mib"], 3 * 1024);
  EXPECT_EQ(tags.count("system/gpu0/power_w"), 0u);

  StepMetrics two;
  two.step = 60;
  DeviceMetrics a, b;
  a.rank = 0;
  a.gpu = busyGpu();
  b.rank = 1;
  b.gpu.not_sampled = "not sampled on rank 1 (see its log)";
  two.devices = {a, b};
  scalars.clear();
  appendGpuScalars(scalars, two);
  EXPECT_EQ(scalars.size(), 7u);  // rank 0's seven figures, none for rank 1

  const std::string dir = test::freshDir("gpu-scalars");
  const std::string file = dir + "/events.out.tfevents.1.gpu";
  {
    TensorBoardWriter tb(file);
    tb.addScalars(two.step, 1700000000.0, scalars);
  }
  const std::string out = file + ".json";
  ASSERT_EQ(std::system((test::pypiToolCommand("read_tensorboard.py") + " " + file + " > " + out).c_str()),
            0);
  const json read = json::parse(test::readBytes(out));
  ASSERT_TRUE(read["scalars"].contains("system/gpu0/power_w")) << read.dump();
  EXPECT_FLOAT_EQ(read["scalars"]["system/gpu0/power_w"][0][2].get<float>(), 312.0f);
  EXPECT_FLOAT_EQ(read["scalars"]["system/gpu0/utilization"][0][2].get<float>(), 87.0f);
  EXPECT_FALSE(read["scalars"].contains("system/gpu1/utilization"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace wb
