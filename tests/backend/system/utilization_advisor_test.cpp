// The utilization advisor on synthetic windows: the likely cause of an under-used GPU, said once per cause.
#include "system/utilization_advisor.h"

#include <gtest/gtest.h>

namespace wb {
namespace {

StepMetrics window(double utilization, double data_wait = 0.05, int64_t step = 100) {
  StepMetrics m;
  m.step = step;
  m.gpu.not_sampled.clear();
  m.gpu.utilization_pct = utilization;
  m.data_wait_fraction = data_wait;
  m.data_ms = 12;
  m.compute_ms = 3;
  m.optimizer_ms = 1;
  return m;
}

TEST(UtilizationAdvisor, ABusyOrUnsampledGpuNeedsNoAdvice) {
  UtilizationAdvisor advisor({});
  EXPECT_EQ(advisor.advise(window(50)), "");
  EXPECT_EQ(advisor.advise(window(97, 0.9)), "");
  StepMetrics cpu = window(10, 0.9);
  cpu.gpu.not_sampled = "CPU run";
  EXPECT_EQ(advisor.advise(cpu), "");
  StepMetrics no_nvml;  // every figure -1: never read as an idle GPU
  no_nvml.gpu.not_sampled = "no NVML: cannot load libnvidia-ml.so.1";
  EXPECT_EQ(advisor.cause(no_nvml), std::nullopt);
}

TEST(UtilizationAdvisor, NamesTheLikelyCause) {
  AdvisorSettings settings;
  EXPECT_EQ(UtilizationAdvisor(settings).cause(window(31, 0.46)), LowUtilizationCause::DataWait);
  EXPECT_EQ(UtilizationAdvisor(settings).cause(window(31, 0.05)), LowUtilizationCause::HostBound);
  settings.batch_size = 16;
  EXPECT_EQ(UtilizationAdvisor(settings).cause(window(31)), LowUtilizationCause::SmallBatch);
  settings.log_every_steps = 1;
  EXPECT_EQ(UtilizationAdvisor(settings).cause(window(31)), LowUtilizationCause::HostSyncs);
  // Waiting for data comes first: nothing else matters while the GPU starves.
  EXPECT_EQ(UtilizationAdvisor(settings).cause(window(31, 0.5)), LowUtilizationCause::DataWait);
}

TEST(UtilizationAdvisor, SaysItOnceAndAgainOnlyWhenTheCauseChanges) {
  AdvisorSettings settings;
  settings.workers = 2;
  UtilizationAdvisor advisor(settings);
  const std::string first = advisor.advise(window(31, 0.46, 120));
  EXPECT_EQ(
      first,
      "The GPU was busy 31% of the time up to step 120: likely waiting for data — 46% of each step waits "
      "for the next batch (12 ms). More loader threads (data.workers, now 2), data.augment_on: device, or "
      "train.data_on_device for a split that fits feed it faster.");
  EXPECT_EQ(advisor.advise(window(28, 0.5, 140)), "");  // the same cause: not every window
  EXPECT_EQ(advisor.advise(window(90, 0.01, 160)), "");
  EXPECT_EQ(advisor.advise(window(35, 0.4, 180)), "");  // back under with the cause already said
  const std::string changed = advisor.advise(window(20, 0.02, 200));
  EXPECT_NE(changed.find("likely the host"), std::string::npos) << changed;
  EXPECT_NE(changed.find("train.cuda_graphs"), std::string::npos) << changed;
}

}  // namespace
}  // namespace wb
