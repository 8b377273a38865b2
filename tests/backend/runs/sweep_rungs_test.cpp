// ASHA's rungs: the rung epochs for a rule; each trial's value recorded in the runs folder's index and set
// against the others at its rung — the first always goes on, then only the top ceil(n / eta) of the n that
// reached it (higher accuracy or lower loss); a resumed trial's value replaces its own; the rule is kept for
// the trials' processes.

#include "workbench/sweep_rungs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "support/temporary_folder.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

TEST(SweepRungs, RungEpochsGrowByEtaBelowTheLastEpoch) {
  SweepEarlyStopping rule;
  rule.rule = "asha";
  EXPECT_EQ(sweepRungEpochs(rule, 10), (std::vector<int64_t>{1, 3, 9}));
  EXPECT_EQ(sweepRungEpochs(rule, 9), (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(sweepRungEpochs(rule, 1).empty()) << "a one-epoch trial has no rung";
  rule.eta = 2;
  rule.grace_epochs = 2;
  EXPECT_EQ(sweepRungEpochs(rule, 20), (std::vector<int64_t>{2, 4, 8, 16}));
  rule.eta = 1.5;
  rule.grace_epochs = 1;
  EXPECT_EQ(sweepRungEpochs(rule, 6), (std::vector<int64_t>{1, 2, 3, 5}))
      << "rounded, each after the one before";
  EXPECT_TRUE(sweepRungEpochs(SweepEarlyStopping{}, 10).empty()) << "no rule, no rungs";
}

TEST(SweepRungs, OnlyTheTopShareAtARungGoesOn) {
  const test::TemporaryFolder folder("sweep-rungs");
  const std::string runs = folder.path();
  auto judge = [&](int64_t trial, double value) {
    return judgeSweepRung(runs, "s", trial, 1, ValidationMetric::ValAccuracy, value, 3);
  };
  RungDecision d = judge(1, 0.5);
  EXPECT_FALSE(d.stop) << "the first to arrive goes on";
  EXPECT_EQ(d.reached, 1);
  d = judge(2, 0.4);
  EXPECT_TRUE(d.stop) << d.reason;
  EXPECT_EQ(d.place, 2);
  EXPECT_EQ(d.kept, 1);
  EXPECT_NE(d.reason.find("val_accuracy 0.4 places 2 of the 2 trials"), std::string::npos) << d.reason;
  EXPECT_NE(d.reason.find("this trial stops here"), std::string::npos) << d.reason;
  EXPECT_FALSE(judge(3, 0.6).stop) << "better than all";
  d = judge(4, 0.55);
  EXPECT_EQ(d.kept, 2) << "ceil(4 / 3)";
  EXPECT_EQ(d.place, 2);
  EXPECT_FALSE(d.stop) << d.reason;
  // A resumed trial records again: its value is replaced, not added.
  d = judge(2, 0.4);
  EXPECT_EQ(d.reached, 4);
  EXPECT_TRUE(d.stop);
  // Another rung and another sweep are apart; lower is better for a loss.
  EXPECT_FALSE(judgeSweepRung(runs, "s", 2, 3, ValidationMetric::ValAccuracy, 0.9, 3).stop);
  EXPECT_FALSE(judgeSweepRung(runs, "other", 1, 1, ValidationMetric::ValLoss, 0.7, 2).stop);
  d = judgeSweepRung(runs, "other", 2, 1, ValidationMetric::ValLoss, 0.3, 2);
  EXPECT_FALSE(d.stop) << "a lower loss places first";
  EXPECT_EQ(d.place, 1);
  EXPECT_TRUE(judgeSweepRung(runs, "other", 3, 1, ValidationMetric::ValLoss, 0.8, 2).stop)
      << "2 of 3 go on: 3rd stops";

  const std::vector<RungResult> results = sweepRungResults(runs, "s");
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results.back().rung, 3);
  EXPECT_DOUBLE_EQ(results.front().value, 0.5);

  EXPECT_FALSE(sweepRule(runs, "s").has_value());
  SweepEarlyStopping rule;
  rule.rule = "asha";
  rule.eta = 4;
  recordSweepRule(runs, "s", rule);
  ASSERT_TRUE(sweepRule(runs, "s").has_value());
  EXPECT_EQ(sweepRule(runs, "s")->eta, 4);
}

}  // namespace
}  // namespace wb
