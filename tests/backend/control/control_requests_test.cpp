// The control room on its own, without training: request files in a run folder's control/ reach the run's
// TrainingControl (and a bad one is refused with its reason beside it), and one rank's RankControls applies
// an agreed learning-rate change to the schedule and remembers "stop after this epoch", rank 0 telling each.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "control/control_request_watcher.h"
#include "control/rank_controls.h"
#include "support/test_experiments.h"
#include "workbench/run_control.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

// Waits (up to 10 s) for the watcher's thread, which polls every half second.
template <typename Condition>
bool eventually(Condition condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

TEST(ControlRequests, RequestFilesReachTheRunsControlInTheOrderSent) {
  const std::string run_dir = test::freshDir("control-requests");
  TrainingControl control;
  ControlRequestWatcher watcher(run_dir, control);
  ControlRequest half;
  half.kind = ControlRequest::Kind::LrScale;
  half.value = 0.5;
  half.at_step = 7;
  ControlRequest stop_after_epoch;
  stop_after_epoch.kind = ControlRequest::Kind::StopAfterEpoch;
  stop_after_epoch.source = "a test";
  sendControlRequest(run_dir, half);
  sendControlRequest(run_dir, stop_after_epoch);

  ASSERT_TRUE(eventually([&] { return control.stopAfterEpochRequested(); }));
  const std::optional<LrChange> change = control.takeLrChange();
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->kind, LrChange::Kind::Scale);
  EXPECT_EQ(change->value, 0.5);
  EXPECT_EQ(change->from_step, 7);
  EXPECT_EQ(change->source, "workbench-cli control");
  EXPECT_EQ(control.stopAfterEpochSource(), "a test");
  EXPECT_FALSE(control.stopRequested());
  EXPECT_TRUE(eventually([&] { return fs::is_empty(controlFolder(run_dir)); }));
}

TEST(ControlRequests, ABadRequestIsRemovedWithItsReasonBesideIt) {
  const std::string run_dir = test::freshDir("control-rejected");
  TrainingControl control;
  ControlRequestWatcher watcher(run_dir, control);
  // Written by another program: a value the run cannot use (renamed into place, as the watcher expects).
  fs::create_directories(controlFolder(run_dir));
  const std::string bad = controlFolder(run_dir) + "/request-00000000000000000001-1.json";
  std::ofstream(bad + ".tmp") << R"({"request": "lr", "value": 0})"
                              << "\n";
  fs::rename(bad + ".tmp", bad);
  ASSERT_TRUE(eventually([&] { return fs::exists(bad + ".rejected"); }));
  std::ifstream in(bad + ".rejected");
  std::stringstream reason;
  reason << in.rdbuf();
  EXPECT_NE(reason.str().find("the learning rate must be a number greater than 0"), std::string::npos)
      << reason.str();
  EXPECT_TRUE(eventually([&] { return !fs::exists(bad); }));
  EXPECT_FALSE(control.takeLrChange().has_value());
}

TEST(ControlRequests, RequestsLeftFromBeforeTheSessionAreRemovedUnread) {
  const std::string run_dir = test::freshDir("control-stale");
  ControlRequest stop;
  stop.kind = ControlRequest::Kind::Stop;
  sendControlRequest(run_dir, stop);
  TrainingControl control;
  ControlRequestWatcher watcher(run_dir, control);
  EXPECT_EQ(watcher.staleRequests(), 1);
  watcher.poll();
  EXPECT_FALSE(control.stopRequested());
}

TEST(RankControls, OneRankAppliesTheChangeFromItsStepAndRemembersStopAfterEpoch) {
  TrainingControl control;
  SingleRank rank(torch::kCPU);
  ScheduleConfig constant;
  LrSchedule schedule(constant, 0.1, 100);
  std::vector<ControlApplied> told;
  EventStream events([&](EventBatch&& batch) {
    for (const Event& e : batch) {
      if (const auto* c = std::get_if<ControlApplied>(&e)) told.push_back(*c);
    }
  });
  RankControls controls(control, rank, schedule, events, /*checkpoint_every_minutes=*/0,
                        /*checkpoints=*/true);

  control.requestLrChange(LrChange{LrChange::Kind::Scale, 0.5, /*from_step=*/-1, "the window"});
  const ControlDecision first = controls.agree(/*step=*/10, /*epoch=*/1);
  EXPECT_TRUE(first.lr.has_value());
  EXPECT_FALSE(first.stop || first.pause || first.checkpoint_due || first.checkpoint_requested);
  EXPECT_DOUBLE_EQ(schedule.lrAt(9), 0.1);  // a step already trained keeps its learning rate
  EXPECT_DOUBLE_EQ(schedule.lrAt(10), 0.05);

  EXPECT_FALSE(controls.stopAfterEpoch());
  control.requestStopAfterEpoch("workbench-cli control");
  control.requestCheckpoint();
  const ControlDecision second = controls.agree(/*step=*/12, /*epoch=*/2);
  EXPECT_TRUE(second.stop_after_epoch);
  EXPECT_TRUE(second.checkpoint_requested);
  EXPECT_TRUE(controls.stopAfterEpoch());
  controls.agree(/*step=*/13, /*epoch=*/2);  // told once
  events.flush();

  ASSERT_EQ(told.size(), 2u);
  EXPECT_EQ(told[0].kind, ControlKind::LrScale);
  EXPECT_EQ(told[0].step, 10);
  EXPECT_DOUBLE_EQ(told[0].lr, 0.05);
  EXPECT_EQ(told[0].message, "step 10: learning rate ×0.5 (now 0.05), requested via the window");
  EXPECT_EQ(told[1].kind, ControlKind::StopAfterEpoch);
  EXPECT_EQ(told[1].value, 2.0);
  EXPECT_EQ(
      told[1].message,
      "step 12: the run stops at the end of epoch 2 with a checkpoint (resume continues it), requested via "
      "workbench-cli control");
}

}  // namespace
}  // namespace wb
