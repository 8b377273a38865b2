// A short run in bf16 (CPU autocast) against the same run in float32: the loss curves agree within a
// tolerance, differ at all (autocast really ran), and both learn.

#include <gtest/gtest.h>
#include <unistd.h>

#include <mutex>
#include <string>
#include <vector>

#include "support/test_experiments.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

struct Curve {
  RunSummary summary;
  std::vector<double> losses;
  std::string error;
};

Curve run(const std::string& amp) {
  Experiment e = test::smallMlpExperiment(test::freshDir("amp-" + amp));
  e.train.epochs = 0;
  e.train.max_steps = 40;
  e.train.amp = fromWord<Precision>(amp).value();
  std::mutex mutex;
  Curve c;
  c.summary = trainBlocking(e, [&](EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& ev : batch) {
      if (const auto* m = std::get_if<StepMetrics>(&ev)) c.losses.push_back(m->loss);
      if (const auto* err = std::get_if<RunError>(&ev)) c.error = err->message;
    }
  });
  return c;
}

TEST(AmpTraining, Bf16LossCurveFollowsFloat32OnTheCpu) {
  const Curve bf16 = run("bf16");
  const Curve fp32 = run("off");
  ASSERT_EQ(fp32.summary.status, RunStatus::Completed) << fp32.error;
  ASSERT_EQ(bf16.summary.status, RunStatus::Completed) << bf16.error;
  ASSERT_EQ(bf16.losses.size(), fp32.losses.size());
  ASSERT_GE(fp32.losses.size(), 4u);
  bool differs = false;
  for (size_t i = 0; i < fp32.losses.size(); ++i) {
    // Window means over 5 steps of batch 64: bf16 rounding moves them by ~1e-3 early, more as the runs
    // diverge.
    EXPECT_NEAR(bf16.losses[i], fp32.losses[i], 0.03 + 0.05 * fp32.losses[i]) << "window " << i;
    differs = differs || bf16.losses[i] != fp32.losses[i];
  }
  EXPECT_TRUE(differs) << "identical curves: autocast did not run";
  EXPECT_LT(bf16.losses.back(), bf16.losses.front());
  EXPECT_NEAR(bf16.summary.test_accuracy, fp32.summary.test_accuracy, 0.05);
}

}  // namespace
}  // namespace wb
