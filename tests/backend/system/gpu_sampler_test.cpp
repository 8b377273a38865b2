// The GPU sampler end to end against a scripted NVML (tests/support/fake_nvml.cpp), loaded the way the
// driver's libnvidia-ml.so.1 is (WORKBENCH_NVML_LIBRARY), and without any NVML.
#include "system/gpu_sampler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "support/fake_nvml_script.h"
#include "system/throttle_reasons.h"

namespace wb {
namespace {

using namespace std::chrono_literals;

using test::FakeNvml;

class GpuSamplerTest : public test::FakeNvmlTest {
 protected:
  static void waitForRounds(const GpuSampler& sampler, int64_t rounds) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (sampler.rounds() < rounds && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(2ms);
    }
    ASSERT_GE(sampler.rounds(), rounds) << "the sampler's thread stopped sampling";
  }
};

TEST_F(GpuSamplerTest, FindsEachCudaDeviceByItsPciBusIdNotByNvmlOrder) {
  FakeNvml& fake = FakeNvml::get();
  fake.device("00000000:3B:00.0", 11);  // NVML index 0
  fake.device("00000000:AF:00.0", 87);  // NVML index 1, but CUDA's first (CUDA_VISIBLE_DEVICES=1,0)
  GpuSampler sampler({{0, "00000000:AF:00.0"}, {1, "00000000:3B:00.0"}}, 1h);
  const GpuFigures first = sampler.take(0);
  ASSERT_TRUE(first.sampled()) << first.not_sampled;
  EXPECT_EQ(first.samples, 1);
  EXPECT_DOUBLE_EQ(first.utilization_pct, 87);
  EXPECT_DOUBLE_EQ(first.power_w, 312);
  EXPECT_DOUBLE_EQ(first.power_limit_w, 400);
  EXPECT_EQ(first.memory_used_bytes, 30ll << 30);
  EXPECT_EQ(first.memory_total_bytes, 80ll << 30);
  EXPECT_DOUBLE_EQ(first.temperature_c, 71);
  EXPECT_DOUBLE_EQ(first.sm_clock_mhz, 1980);
  EXPECT_EQ(first.throttle_reasons,
            (std::vector<ThrottleReason>{ThrottleReason::SwPowerCap, ThrottleReason::HwThermal}));
  EXPECT_DOUBLE_EQ(sampler.take(1).utilization_pct, 11);
  // A window shorter than the interval: the last sample again, said as 0 samples.
  const GpuFigures again = sampler.take(0);
  EXPECT_EQ(again.samples, 0);
  EXPECT_DOUBLE_EQ(again.utilization_pct, 87);
  EXPECT_FALSE(sampler.take(2).sampled());
  EXPECT_EQ(sampler.describe(),
            "GPU figures from NVML every 3600 s: cuda:0 (00000000:AF:00.0), cuda:1 (00000000:3B:00.0)");
}

TEST_F(GpuSamplerTest, SamplesOnItsOwnThreadAndAveragesTheWindow) {
  FakeNvml& fake = FakeNvml::get();
  fake.device("0000:01:00.0", 50);
  GpuSampler sampler({{0, "0000:01:00.0"}}, 5ms);
  sampler.take(0);
  fake.device("0000:01:00.0", 20, 100000);
  waitForRounds(sampler, sampler.rounds() + 3);
  fake.device("0000:01:00.0", 80, 300000);
  waitForRounds(sampler, sampler.rounds() + 3);
  const GpuFigures window = sampler.take(0);
  ASSERT_TRUE(window.sampled()) << window.not_sampled;
  EXPECT_GE(window.samples, 5);
  // Both phases count: a mean strictly between them, never the last reading alone.
  EXPECT_GT(window.utilization_pct, 20);
  EXPECT_LT(window.utilization_pct, 80);
  EXPECT_GT(window.power_w, 100);
  EXPECT_LT(window.power_w, 300);
  EXPECT_GE(fake.utilization_reads(), window.samples);
}

TEST_F(GpuSamplerTest, AFigureTheGpuDoesNotReportStaysUnknownWhileTheOthersAreSampled) {
  FakeNvml::get().device("0000:01:00.0", 64, /*power_mw=*/-1);
  GpuSampler sampler({{0, "0000:01:00.0"}}, 1h);
  const GpuFigures f = sampler.take(0);
  ASSERT_TRUE(f.sampled()) << f.not_sampled;
  EXPECT_DOUBLE_EQ(f.utilization_pct, 64);
  EXPECT_EQ(f.power_w, -1);
  EXPECT_EQ(f.power_limit_w, -1);
}

TEST_F(GpuSamplerTest, WithoutTheLibraryEveryFigureSaysNoNvmlAndWhy) {
  setenv("WORKBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  GpuSampler sampler({{0, "0000:01:00.0"}}, 1ms);
  const GpuFigures f = sampler.take(0);
  EXPECT_FALSE(f.sampled());
  EXPECT_EQ(f.not_sampled.rfind("no NVML: cannot load /nonexistent/libnvidia-ml.so.1", 0), 0u)
      << f.not_sampled;
  EXPECT_EQ(f.utilization_pct, -1);
  EXPECT_EQ(f.power_w, -1);
  EXPECT_EQ(f.memory_used_bytes, -1);
  EXPECT_EQ(f.samples, 0);
  EXPECT_EQ(sampler.rounds(), 0);  // no thread polls a library that is not there
  EXPECT_EQ(sampler.describe().rfind("GPU figures: cuda:0 not sampled: no NVML: cannot load /nonexistent", 0),
            0u)
      << sampler.describe();
}

TEST_F(GpuSamplerTest, ALibraryThatIsNotNvmlIsNamed) {
  setenv("WORKBENCH_NVML_LIBRARY", "libc.so.6", 1);
  GpuSampler sampler({{0, "0000:01:00.0"}}, 1ms);
  EXPECT_EQ(sampler.take(0).not_sampled, "no NVML: libc.so.6 has no nvmlInit_v2");
}

TEST_F(GpuSamplerTest, ADriverNotLoadedIsTheReason) {
  FakeNvml::get().reset(9);
  GpuSampler sampler({{0, "0000:01:00.0"}}, 1ms);
  EXPECT_EQ(sampler.take(0).not_sampled, "no NVML: nvmlInit_v2 failed: Driver Not Loaded");
  EXPECT_EQ(FakeNvml::get().initialized(), 0);
}

TEST_F(GpuSamplerTest, ADeviceNvmlDoesNotKnowOrCannotBeMatchedIsNotGuessed) {
  FakeNvml::get().device("0000:01:00.0", 90);
  GpuSampler sampler({{0, "0000:02:00.0"}, {1, ""}}, 1ms);
  EXPECT_EQ(sampler.take(0).not_sampled, "NVML has no device at PCI bus id 0000:02:00.0: Not Found");
  EXPECT_EQ(sampler.take(1).not_sampled, "no NVML device for cuda:1: CUDA gave no PCI bus id to find it by");
  EXPECT_EQ(sampler.take(1).utilization_pct, -1);
}

TEST_F(GpuSamplerTest, AGpuLostWhileSampledStopsReportingFigures) {
  FakeNvml& fake = FakeNvml::get();
  fake.device("0000:01:00.0", 90);
  GpuSampler sampler({{0, "0000:01:00.0"}}, 2ms);
  EXPECT_TRUE(sampler.take(0).sampled());
  fake.device("0000:01:00.0", 90, 312000, /*lost=*/1);
  waitForRounds(sampler, sampler.rounds() + 2);
  const GpuFigures f = sampler.take(0);
  EXPECT_EQ(f.not_sampled, "NVML: NVML could not read the GPU's utilization: GPU is lost");
  EXPECT_EQ(f.utilization_pct, -1);
}

TEST_F(GpuSamplerTest, NvmlIsShutDownWithTheSampler) {
  FakeNvml::get().device("0000:01:00.0", 90);
  {
    GpuSampler sampler({{0, "0000:01:00.0"}}, 1ms);
    EXPECT_EQ(FakeNvml::get().initialized(), 1);
  }
  EXPECT_EQ(FakeNvml::get().initialized(), 0);
}

TEST(ThrottleReasons, NvmlBitsBecomeWords) {
  EXPECT_EQ(throttleReasonsFromBits(0), std::vector<ThrottleReason>{});
  EXPECT_EQ(throttleReasonsFromBits(0x1 | 0x100 | 0x8000),
            (std::vector<ThrottleReason>{ThrottleReason::Idle, ThrottleReason::DisplayClocks}));
  EXPECT_EQ(wordString(ThrottleReason::SwPowerCap), "power_cap");
}

}  // namespace
}  // namespace wb
