// The GPU's figures in metrics.jsonl: read back as written, and an unknown figure never read as zero.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "workbench/event_json.h"

namespace wb {
namespace {

StepMetrics stepBack(const StepMetrics& m) {
  // Through text, as metrics.jsonl holds it.
  const auto back = eventFromJson(nlohmann::json::parse(eventToJson(m).dump()));
  EXPECT_TRUE(back && std::holds_alternative<StepMetrics>(*back));
  return back ? std::get<StepMetrics>(*back) : StepMetrics{};
}

TEST(GpuFiguresJson, SampledFiguresRoundTrip) {
  StepMetrics m;
  m.gpu.not_sampled.clear();
  m.gpu.samples = 4;
  m.gpu.utilization_pct = 87.5;
  m.gpu.memory_used_bytes = 30ll << 30;
  m.gpu.memory_total_bytes = 80ll << 30;
  m.gpu.power_w = 312;
  m.gpu.power_limit_w = 400;
  m.gpu.temperature_c = 71;
  m.gpu.sm_clock_mhz = 1980;
  m.gpu.throttle_reasons = {ThrottleReason::SwPowerCap};
  DeviceMetrics d;
  d.device = "cuda:1";
  d.gpu = m.gpu;
  d.gpu.utilization_pct = 12;
  m.devices = {d};
  const StepMetrics back = stepBack(m);
  EXPECT_TRUE(back.gpu.sampled());
  EXPECT_EQ(back.gpu.samples, 4);
  EXPECT_DOUBLE_EQ(back.gpu.utilization_pct, 87.5);
  EXPECT_EQ(back.gpu.memory_used_bytes, 30ll << 30);
  EXPECT_EQ(back.gpu.memory_total_bytes, 80ll << 30);
  EXPECT_DOUBLE_EQ(back.gpu.power_w, 312);
  EXPECT_DOUBLE_EQ(back.gpu.power_limit_w, 400);
  EXPECT_DOUBLE_EQ(back.gpu.temperature_c, 71);
  EXPECT_DOUBLE_EQ(back.gpu.sm_clock_mhz, 1980);
  EXPECT_EQ(back.gpu.throttle_reasons, std::vector<ThrottleReason>{ThrottleReason::SwPowerCap});
  ASSERT_EQ(back.devices.size(), 1u);
  EXPECT_DOUBLE_EQ(back.devices[0].gpu.utilization_pct, 12);
  EXPECT_EQ(eventToJson(m)["gpu"]["throttle_reasons"][0], "power_cap");
}

TEST(GpuFiguresJson, NotSampledKeepsItsReasonAndNoFigure) {
  StepMetrics m;
  m.gpu.not_sampled = "no NVML: cannot load libnvidia-ml.so.1";
  const nlohmann::json j = eventToJson(m);
  EXPECT_EQ(j["gpu"], nlohmann::json({{"not_sampled", "no NVML: cannot load libnvidia-ml.so.1"}}));
  const StepMetrics back = stepBack(m);
  EXPECT_FALSE(back.gpu.sampled());
  EXPECT_EQ(back.gpu.not_sampled, "no NVML: cannot load libnvidia-ml.so.1");
  EXPECT_EQ(back.gpu.utilization_pct, -1);
}

TEST(GpuFiguresJson, AFigureTheGpuDidNotReportStaysUnknown) {
  StepMetrics m;
  m.gpu.not_sampled.clear();
  m.gpu.utilization_pct = 0;  // an idle GPU is a real zero
  const StepMetrics back = stepBack(m);
  EXPECT_TRUE(back.gpu.sampled());
  EXPECT_DOUBLE_EQ(back.gpu.utilization_pct, 0);
  EXPECT_EQ(back.gpu.power_w, -1);
  EXPECT_EQ(back.gpu.memory_total_bytes, -1);
}

TEST(GpuFiguresJson, AnOlderLineWithoutGpuReadsAsNotSampled) {
  const auto back = eventFromJson(nlohmann::json{{"event", "step"}, {"step", 3}, {"utilization_pct", 50}});
  ASSERT_TRUE(back && std::holds_alternative<StepMetrics>(*back));
  EXPECT_FALSE(std::get<StepMetrics>(*back).gpu.sampled());
  // A damaged figure reads as unknown.
  const auto damaged = eventFromJson(nlohmann::json{
      {"event", "step"}, {"gpu", {{"samples", 1}, {"power_w", "lots"}, {"utilization_pct", 1e300}}}});
  ASSERT_TRUE(damaged);
  EXPECT_EQ(std::get<StepMetrics>(*damaged).gpu.power_w, -1);
  EXPECT_EQ(std::get<StepMetrics>(*damaged).gpu.utilization_pct, -1);
}

TEST(GpuFiguresText, TheProgressLineShowsOnlySampledFigures) {
  GpuFigures f;
  f.not_sampled.clear();
  f.utilization_pct = 86.6;
  f.power_w = 311.7;
  EXPECT_EQ(gpuBrief(f), "gpu 87% 312W");
  f.power_w = -1;
  EXPECT_EQ(gpuBrief(f), "gpu 87%");
  f.utilization_pct = 0;
  EXPECT_EQ(gpuBrief(f), "gpu 0%");  // an idle GPU says so
  f.not_sampled = "no NVML: cannot load libnvidia-ml.so.1";
  EXPECT_EQ(gpuBrief(f), "");
  EXPECT_EQ(gpuBrief(GpuFigures{}), "");
}

}  // namespace
}  // namespace wb
