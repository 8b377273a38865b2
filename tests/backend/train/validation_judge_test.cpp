// A run's validation judge (what a sweep's early stopping of poor trials plugs in): asked after each
// validation with that epoch's metrics, it can end the run there — EarlyStopped, its checkpoint written, the
// reason in the log — and a judge that fails leaves the run training, with a warning.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

std::string readText(const fs::path& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

RunSummary trainJudged(const Experiment& e, ValidationJudge judge) {
  TrainingRun run(e, [](EventBatch&&) {});
  run.setValidationJudge(std::move(judge));
  run.start();
  run.wait();
  return run.summary();
}

class ValidationJudgeTest : public ::testing::Test {
 protected:
  void SetUp() override { m_dir = test::freshDir("validation-judge"); }
  void TearDown() override { fs::remove_all(m_dir); }
  Experiment experiment() const {
    Experiment e = test::smallMlpExperiment(m_dir + "/runs");
    e.train.epochs = 4;
    e.train.threads = 1;
    return e;
  }
  std::string m_dir;
};

TEST_F(ValidationJudgeTest, AReasonEndsTheRunAfterThatEpoch) {
  std::vector<EpochMetrics> seen;
  const RunSummary summary = trainJudged(experiment(), [&](const EpochMetrics& m) {
    seen.push_back(m);
    if (m.epoch == 1) return ValidationVerdict{false, "epoch 1 passes the rung"};
    return ValidationVerdict{m.epoch == 2, "val_accuracy " +
                                               std::to_string(figureNamed(m.val_figures, "accuracy", -1)) +
                                               " is below the rung's cut"};
  });
  EXPECT_EQ(summary.status, RunStatus::EarlyStopped);
  ASSERT_EQ(seen.size(), 2u) << "asked after each validation, and not after the run ended";
  EXPECT_EQ(seen[0].epoch, 1);
  EXPECT_GE(figureNamed(seen[1].val_figures, "accuracy", -1), 0.0)
      << "the epoch's validation is in what the judge sees";
  EXPECT_GE(seen[1].val_loss, 0.0);
  const std::string log = readText(fs::path(summary.run_dir) / "train.log");
  EXPECT_NE(log.find("epoch 1 passes the rung"), std::string::npos) << log;
  EXPECT_NE(log.find("is below the rung's cut"), std::string::npos) << log;
  EXPECT_NE(log.find("Stopped after epoch 2."), std::string::npos) << log;
  EXPECT_EQ(summary.epochs, 2);
}

TEST_F(ValidationJudgeTest, AJudgeThatFailsLeavesTheRunTraining) {
  int asked = 0;
  const RunSummary summary = trainJudged(experiment(), [&](const EpochMetrics&) -> ValidationVerdict {
    ++asked;
    throw std::runtime_error("the runs index is locked");
  });
  EXPECT_EQ(summary.status, RunStatus::Completed);
  EXPECT_EQ(asked, 4);
  const std::string log = readText(fs::path(summary.run_dir) / "train.log");
  EXPECT_NE(log.find("the runs index is locked"), std::string::npos) << log;
}

}  // namespace
}  // namespace wb
