// Live control of a running run: a learning-rate change (×k on the schedule, or a constant) takes effect at a
// step boundary and the optimizer trains with it; "stop after this epoch" ends the run at the epoch's last
// step with a checkpoint; a change is kept in checkpoints, so a resumed run ends bit-identical to the run
// left alone with the same change; two data-parallel ranks apply it at the same step. Each change is an event
// in metrics.jsonl and train.log, read back with the run's history.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>

#include "optim/lr_schedule.h"
#include "support/model_weights.h"
#include "support/resumed_session.h"
#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"
#include "workbench/run_history.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

// 1,800 training samples of 64: 29 steps an epoch, 58 in all; a cosine schedule, so the learning rate moves
// at every step and a factor on it is told apart from a constant.
Experiment liveExperiment(const std::string& runs) {
  Experiment e = test::smallMlpExperiment(runs);
  e.name = "live";
  e.schedule.name = ScheduleName::Cosine;
  e.train.log_every_steps = 1;
  e.train.checkpoint_every_minutes = 0;
  return e;
}

struct ControlRecording {
  RunSummary summary;
  std::map<int64_t, double> lr;  // metrics step -> the learning rate of that step
  std::vector<ControlApplied> controls;
  std::vector<RunError> errors;
};

// Runs `e` (or resumes `resume_dir`); `during(run, step)` is called from the event sink, on the run's own
// thread, for each step reported, so requests made there are deterministic in what they ask, not in when.
ControlRecording record(const Experiment& e, const std::vector<LrChange>& before_start,
                        const std::function<void(TrainingRun&, int64_t)>& during = {},
                        const std::string& resume_dir = {}) {
  ControlRecording out;
  std::mutex mutex;
  TrainingRun* self = nullptr;
  auto sink = [&](EventBatch&& batch) {
    for (const Event& ev : batch) {
      std::lock_guard<std::mutex> lock(mutex);
      if (const auto* m = std::get_if<StepMetrics>(&ev)) {
        out.lr[m->step] = m->lr;
        if (during) during(*self, m->step);
      }
      if (const auto* c = std::get_if<ControlApplied>(&ev)) out.controls.push_back(*c);
      if (const auto* err = std::get_if<RunError>(&ev)) out.errors.push_back(*err);
    }
  };
  std::unique_ptr<TrainingRun> run = resume_dir.empty()
                                         ? std::make_unique<TrainingRun>(e, sink)
                                         : std::make_unique<TrainingRun>(ResumeRequest{resume_dir}, sink);
  self = run.get();
  for (const LrChange& change : before_start) run->setLearningRate(change);
  run->start();
  run->wait();
  out.summary = run->summary();
  return out;
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string firstError(const ControlRecording& r) {
  return r.errors.empty() ? std::string() : r.errors.front().message;
}

class LiveControl : public ::testing::Test {
 protected:
  void SetUp() override { runs = test::freshDir("live-control"); }
  void TearDown() override { fs::remove_all(runs); }
  std::string runs;
};

TEST_F(LiveControl, HalvingTheLearningRateMidRunHalvesTheScheduleFromThatStepOn) {
  const ControlRecording reference = record(liveExperiment(runs), {});
  ASSERT_EQ(reference.summary.status, RunStatus::Completed) << firstError(reference);
  bool asked = false;
  const ControlRecording changed = record(liveExperiment(runs), {}, [&](TrainingRun& run, int64_t step) {
    if (step >= 10 && !asked) {
      asked = true;
      run.setLearningRate(LrChange{LrChange::Kind::Scale, 0.5, -1, "the test"});
    }
  });
  ASSERT_EQ(changed.summary.status, RunStatus::Completed) << firstError(changed);
  ASSERT_EQ(changed.controls.size(), 1u);
  const ControlApplied& c = changed.controls[0];
  EXPECT_EQ(c.kind, ControlKind::LrScale);
  EXPECT_EQ(c.value, 0.5);
  EXPECT_GE(c.step, 10);
  EXPECT_LT(c.step, 58);
  EXPECT_EQ(c.source, "the test");
  // Metrics step m reports the learning rate of the m-th step, which follows m - 1 steps done.
  EXPECT_EQ(c.lr, 0.5 * reference.lr.at(c.step + 1));
  ASSERT_EQ(changed.lr.size(), 58u);
  for (const auto& [step, lr] : changed.lr) {
    const double expected = step - 1 >= c.step ? 0.5 * reference.lr.at(step) : reference.lr.at(step);
    EXPECT_EQ(lr, expected) << "step " << step << " (change at " << c.step << ")";
  }
  // In the run folder: metrics.jsonl (read back for the charts of past runs) and train.log.
  const RunHistory history = loadRunHistory(changed.summary.run_dir);
  ASSERT_EQ(history.controls.size(), 1u);
  EXPECT_EQ(history.controls[0].step, c.step);
  EXPECT_EQ(history.controls[0].lr, c.lr);
  EXPECT_NE(c.message.find("step " + std::to_string(c.step) + ": learning rate ×0.5 (now "),
            std::string::npos)
      << c.message;
  EXPECT_NE(readText(changed.summary.run_dir + "/train.log").find(c.message), std::string::npos);
}

TEST_F(LiveControl, AConstantLearningRateReplacesTheScheduleAndTheOptimizerTrainsWithIt) {
  // A constant schedule, so that a run cut at step 20 trains its first 20 steps exactly like the full one.
  Experiment e = liveExperiment(runs);
  e.schedule.name = ScheduleName::Constant;
  Experiment first20 = e;
  first20.train.max_steps = 20;
  const ControlRecording cut = record(first20, {});
  ASSERT_EQ(cut.summary.steps, 20);
  const ControlRecording reference = record(e, {});
  // From step 20 on, a learning rate so small that the weights must stay where the cut run left them.
  const ControlRecording frozen = record(e, {LrChange{LrChange::Kind::Constant, 1e-12, 20, "the test"}});
  ASSERT_EQ(frozen.summary.status, RunStatus::Completed) << firstError(frozen);
  ASSERT_EQ(frozen.controls.size(), 1u);
  EXPECT_EQ(frozen.controls[0].step, 20);
  EXPECT_EQ(frozen.controls[0].kind, ControlKind::LrConstant);
  EXPECT_EQ(frozen.controls[0].lr, 1e-12);
  for (const auto& [step, lr] : frozen.lr)
    EXPECT_EQ(lr, step > 20 ? 1e-12 : e.optimizer.lr) << "step " << step;
  EXPECT_LT(
      test::maxWeightDifference(cut.summary.run_dir + "/model.pt", frozen.summary.run_dir + "/model.pt"),
      1e-8);
  EXPECT_GT(
      test::maxWeightDifference(cut.summary.run_dir + "/model.pt", reference.summary.run_dir + "/model.pt"),
      1e-3);
}

TEST_F(LiveControl, BadValuesAreRefusedNamingThem) {
  TrainingRun run(liveExperiment(runs), [](EventBatch&&) {});
  try {
    run.setLearningRate(LrChange{LrChange::Kind::Scale, -2, -1, {}});
    FAIL() << "a negative factor was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("factor must be a number greater than 0; got -2"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(run.setLearningRate(LrChange{LrChange::Kind::Constant, std::nan(""), -1, {}}), UserError);
}

TEST_F(LiveControl, StopAfterThisEpochEndsAtTheEpochsLastStepWithACheckpointAndResumes) {
  // Three epochs: the request (made at the first report from step 5 on, by the end of epoch 1 at the latest)
  // ends epoch 1 or 2, never the run's natural end.
  Experiment e = liveExperiment(runs);
  e.train.epochs = 3;
  bool asked = false;
  const ControlRecording stopped = record(e, {}, [&](TrainingRun& run, int64_t step) {
    if (step >= 5 && !asked) {
      asked = true;
      run.stopAfterEpoch("the test");
    }
  });
  ASSERT_EQ(stopped.summary.status, RunStatus::Interrupted) << firstError(stopped);
  ASSERT_EQ(stopped.controls.size(), 1u);
  EXPECT_EQ(stopped.controls[0].kind, ControlKind::StopAfterEpoch);
  const auto epoch = static_cast<int64_t>(stopped.controls[0].value);
  ASSERT_TRUE(epoch == 1 || epoch == 2) << epoch;
  EXPECT_EQ(stopped.summary.steps, 29 * epoch);  // that epoch's last step
  EXPECT_TRUE(fs::exists(stopped.summary.run_dir + "/checkpoints/step-0000000000" +
                         std::to_string(29 * epoch) + ".wbckpt"));
  const RunHistory history = loadRunHistory(stopped.summary.run_dir);
  ASSERT_EQ(static_cast<int64_t>(history.epochs.size()),
            epoch);  // it ended as epochs do: metrics, validation
  EXPECT_GE(history.epochs.back().val_loss, 0);
  const ControlRecording resumed = record(e, {}, {}, stopped.summary.run_dir);
  ASSERT_EQ(resumed.summary.status, RunStatus::Completed) << firstError(resumed);
  EXPECT_EQ(resumed.summary.steps, 87);
  EXPECT_EQ(test::lastResumedSession(stopped.summary.run_dir + "/metrics.jsonl").continued_at, 29 * epoch);
}

TEST_F(LiveControl, ResumedAfterAChangeEndsBitIdenticalToTheRunLeftAloneWithTheSameChange) {
  const LrChange change{LrChange::Kind::Scale, 0.5, 12, "the test"};
  const ControlRecording alone = record(liveExperiment(runs), {change});
  ASSERT_EQ(alone.summary.status, RunStatus::Completed) << firstError(alone);
  const ControlRecording stopped = record(liveExperiment(runs), {change}, [](TrainingRun& run, int64_t step) {
    if (step >= 20) run.requestStop();
  });
  ASSERT_EQ(stopped.summary.status, RunStatus::Interrupted) << firstError(stopped);
  ASSERT_GT(stopped.summary.steps, 12);
  const ControlRecording resumed = record(liveExperiment(runs), {}, {}, stopped.summary.run_dir);
  ASSERT_EQ(resumed.summary.status, RunStatus::Completed) << firstError(resumed);
  EXPECT_EQ(test::lastResumedSession(stopped.summary.run_dir + "/metrics.jsonl").continued_at,
            stopped.summary.steps);
  // The resumed session reports the halved learning rate without being asked again: the checkpoint kept it.
  for (const auto& [step, lr] : resumed.lr) EXPECT_EQ(lr, alone.lr.at(step)) << "step " << step;
  test::expectBitIdentical(alone.summary.run_dir + "/model.pt", resumed.summary.run_dir + "/model.pt");
  // And the change mattered: without it the weights differ.
  const ControlRecording unchanged = record(liveExperiment(runs), {});
  EXPECT_GT(
      test::maxWeightDifference(alone.summary.run_dir + "/model.pt", unchanged.summary.run_dir + "/model.pt"),
      1e-4);
}

// Two CPU ranks of batch 64 train what one rank of batch 128 trains (data_parallel_test); with a change asked
// mid-run, only if both ranks apply it at the same step as the one rank does.
TEST_F(LiveControl, TwoDataParallelRanksApplyTheChangeAtTheSameStep) {
#ifndef WB_WITH_GLOO
  GTEST_SKIP() << WB_NO_GLOO_REASON;
#endif
  auto experiment = [&](int ranks, int64_t batch) {
    Experiment e = test::smallMlpExperiment(runs);
    e.name = "live-dp";
    e.data.limit = 2048;
    e.data.val_fraction = 0;
    e.model.preset = "";
    e.model.layers = nlohmann::json::array({{{"type", "flatten"}},
                                            {{"type", "linear"}, {"out_features", 64}},
                                            {{"type", "relu"}},
                                            {{"type", "linear"}, {"out_features", 10}}});
    e.optimizer.name = OptimizerName::Sgd;
    e.optimizer.lr = 0.05;
    e.optimizer.momentum = 0.9;
    e.optimizer.weight_decay = 0;
    e.schedule.name = ScheduleName::Constant;
    e.train.batch_size = batch;
    e.train.devices = std::vector<std::string>(ranks, "cpu");
    e.train.checkpoint_every_minutes = 0;
    e.train.log_every_steps = 1;
    e.train.collective_timeout = 30;
    return e;
  };
  bool asked = false;
  const ControlRecording two = record(experiment(2, 64), {}, [&](TrainingRun& run, int64_t step) {
    if (step >= 6 && !asked) {
      asked = true;
      run.setLearningRate(LrChange{LrChange::Kind::Scale, 0.25, -1, "the test"});
    }
  });
  ASSERT_EQ(two.summary.status, RunStatus::Completed) << firstError(two);
  ASSERT_EQ(two.controls.size(), 1u);
  const int64_t at = two.controls[0].step;
  const ControlRecording one =
      record(experiment(1, 128), {LrChange{LrChange::Kind::Scale, 0.25, at, "the test"}});
  ASSERT_EQ(one.summary.status, RunStatus::Completed) << firstError(one);
  EXPECT_LT(test::maxWeightDifference(one.summary.run_dir + "/model.pt", two.summary.run_dir + "/model.pt"),
            2e-5);
  // Not by accident: one rank changed a step later trains other weights.
  const ControlRecording later =
      record(experiment(1, 128), {LrChange{LrChange::Kind::Scale, 0.25, at + 1, "the test"}});
  EXPECT_GT(test::maxWeightDifference(later.summary.run_dir + "/model.pt", two.summary.run_dir + "/model.pt"),
            1e-5);
}

// The schedule's part: changes compound and are ordered by step; a checkpoint's state keeps them, and a
// state written before live changes existed (no "overrides") loads as none.
TEST(LrScheduleOverrides, CompoundInStepOrderAndRoundTripThroughTheState) {
  ScheduleConfig cosine;
  cosine.name = ScheduleName::Cosine;
  LrSchedule schedule(cosine, 0.1, 100);
  const nlohmann::json old_state = schedule.state();
  schedule.addOverride(LrOverride{30, false, 0.5});
  schedule.addOverride(LrOverride{10, false, 0.5});
  schedule.addOverride(LrOverride{50, true, 0.01});
  schedule.addOverride(LrOverride{60, false, 2.0});
  EXPECT_EQ(schedule.lrAt(5), schedule.scheduledLrAt(5));
  EXPECT_EQ(schedule.lrAt(10), schedule.scheduledLrAt(10) * 0.5);
  EXPECT_EQ(schedule.lrAt(30), schedule.scheduledLrAt(30) * 0.25);
  EXPECT_EQ(schedule.lrAt(55), 0.01);
  EXPECT_EQ(schedule.lrAt(70), 0.02);
  LrSchedule resumed(cosine, 0.1, 100);
  resumed.loadState(schedule.state());
  for (int64_t k = 0; k < 100; ++k) EXPECT_EQ(resumed.lrAt(k), schedule.lrAt(k)) << k;
  nlohmann::json before_overrides = old_state;
  before_overrides.erase("overrides");
  resumed.loadState(before_overrides);
  for (int64_t k = 0; k < 100; ++k) EXPECT_EQ(resumed.lrAt(k), schedule.scheduledLrAt(k)) << k;
}

}  // namespace
}  // namespace wb
