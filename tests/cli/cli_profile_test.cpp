// `workbench-cli profile` and `train --profile` end to end on the CPU: a few steps of the default CNN
// recorded, the table printed, and the trace read back by a reader we did not write (the Chrome Trace Event
// Format's JSON schema through PyPI's jsonschema, then Python's json: tests/python/check_chrome_trace.py),
// whose own measure of the steps and phases must be the report's; the table's totals against the step time.
// Bad input: no steps, a first step beyond the run's, a CUDA run on a machine without one.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_runner.h"
#include "support/pypi_tools.h"
#include "support/test_helpers.h"

namespace {

namespace fs = std::filesystem;
using wb::test::readFile;
using wb::test::runCli;
using wb::test::tempDir;

// The default CNN on 1,000 Fashion-MNIST samples (900 to train) in batches of 32: 29 steps an epoch, so the
// profiled steps (3-6) lie in the first epoch, away from its validation.
std::string smallRun(const std::string& runs) {
  return "--set data.limit=1000 --set data.val_fraction=0.1 --set train.batch_size=32 --set "
         "output.runs_dir=" +
         runs;
}

nlohmann::json checkTrace(const std::string& trace, int first_step, int steps, const std::string& dir) {
  const std::string out = dir + "/trace-check.json";
  const std::string err = dir + "/trace-check.err";
  const std::string cmd = wb::test::pypiToolCommand("check_chrome_trace.py") + " " + trace + " " +
                          std::to_string(first_step) + " " + std::to_string(steps) + " > " + out + " 2> " +
                          err;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << readFile(err);
  return nlohmann::json::parse(readFile(out), nullptr, false);
}

TEST(CliProfile, RecordsTheStepsAndTheTraceReadsBackElsewhere) {
  ASSERT_PYPI_TOOLS();
  const std::string dir = tempDir("profile");
  const auto r = runCli("profile " + smallRun(dir + "/runs") + " --steps 4 --warmup 2 --rows 12 --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Self CPU time total"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Step phases (mean of 4 steps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ui.perfetto.dev"), std::string::npos);
  const std::string run = wb::test::onlyRunFolder(dir + "/runs");
  const std::string trace = run + "/profile/steps-3-6.pt.trace.json";
  ASSERT_TRUE(fs::exists(trace)) << r.out;
  EXPECT_NE(r.out.find(trace), std::string::npos) << "says where the trace is";

  const nlohmann::json seen = checkTrace(trace, 2, 4, dir);
  ASSERT_FALSE(seen.is_discarded());
  const auto& aten = seen["aten_operators"];
  EXPECT_NE(std::find(aten.begin(), aten.end(), "aten::convolution"), aten.end()) << aten.dump();
  EXPECT_NE(std::find(aten.begin(), aten.end(), "aten::addmm"), aten.end()) << aten.dump();

  const nlohmann::json report = nlohmann::json::parse(readFile(run + "/profile/steps-3-6.json"));
  EXPECT_EQ(report["steps"], 4);
  EXPECT_EQ(report["first_step"], 2);
  EXPECT_EQ(report["cuda_activities"], false);
  // The trace's own durations give the report's step and phase times.
  const double step_ms = report["step_ms"].get<double>();
  EXPECT_NEAR(seen["step_ms"].get<double>(), step_ms, 1e-6 * step_ms);
  double phases_ms = 0;
  for (const char* phase : {"data", "forward", "backward", "optimizer"}) {
    ASSERT_TRUE(report["phases"].contains(phase)) << report["phases"].dump();
    EXPECT_NEAR(seen["phases_ms"][phase].get<double>(), report["phases"][phase].get<double>(), 1e-6) << phase;
    phases_ms += report["phases"][phase].get<double>();
  }
  EXPECT_FALSE(report["phases"].contains("allreduce")) << "one device: no allreduce";
  // The phases make up the step: the rest is the loop's own bookkeeping between them (the loss kept for the
  // metrics, the learning rate set), a small share on any CPU; never more than the step.
  EXPECT_LE(phases_ms, step_ms * 1.01);
  EXPECT_GE(phases_ms, step_ms * 0.75);
  // Every moment of the profiled steps is some operator's or range's own: the self times add up to the
  // steps' time (what ran between the steps, outside them, comes on top).
  double self_cpu = 0, step_rows = 0;
  for (const auto& row : report["operators"]) {
    self_cpu += row["self_cpu_ms"].get<double>();
    if (row["name"] == "ProfilerStep*") step_rows += row["cpu_total_ms"].get<double>();
  }
  EXPECT_NEAR(step_rows, 4 * step_ms, 1e-6 * step_ms);
  EXPECT_GE(self_cpu, step_rows * 0.999);
  EXPECT_LE(self_cpu, step_rows * 1.25);
  // metrics.jsonl has the event, without the rows.
  EXPECT_NE(readFile(run + "/metrics.jsonl").find("\"event\":\"profile\""), std::string::npos);
  fs::remove_all(dir);
}

TEST(CliProfile, TrainProfilesTheStepsAskedAndTrainsOn) {
  const std::string dir = tempDir("train-profile");
  const auto r = runCli("train " + smallRun(dir + "/runs") +
                        " --set model.preset=mlp --set train.max_steps=8 --profile 4:2 --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string run = wb::test::onlyRunFolder(dir + "/runs");
  EXPECT_TRUE(fs::exists(run + "/profile/steps-5-6.pt.trace.json"));
  EXPECT_TRUE(fs::exists(run + "/profile/steps-5-6.txt"));
  EXPECT_NE(readFile(run + "/train.log").find("Profile of steps 5–6"), std::string::npos);
  EXPECT_NE(readFile(run + "/summary.json").find("\"steps\": 8"), std::string::npos) << "it trained on";
  fs::remove_all(dir);
}

// A run training in another process: `control RUN --profile 2` records its next two steps.
TEST(CliProfile, ControlProfilesARunTrainingNow) {
  const std::string dir = tempDir("profile-control");
  const std::string runs = dir + "/runs";
  const pid_t pid = wb::test::startCli(
      "train " + smallRun(runs) + " --set model.preset=mlp --set train.epochs=100", dir + "/train.out");
  std::string run;
  for (int i = 0; i < 3000 && (run.empty() || !fs::exists(run + "/metrics.jsonl")); ++i) {
    run = wb::test::onlyRunFolder(runs);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(run.empty()) << readFile(dir + "/train.out");
  const auto asked = runCli("control " + run + " --profile 2");
  EXPECT_EQ(asked.status, 0) << asked.err;
  EXPECT_NE(asked.out.find("a profile of 2 steps requested"), std::string::npos) << asked.out;
  bool recorded = false;
  for (int i = 0; i < 3000 && !recorded; ++i) {
    recorded = readFile(run + "/metrics.jsonl").find("\"event\":\"profile\"") != std::string::npos;
    if (!recorded) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(recorded) << readFile(dir + "/train.out");
  EXPECT_NE(readFile(run + "/train.log").find("(workbench-cli control)"), std::string::npos);
  bool report = false;
  for (const auto& entry : fs::directory_iterator(run + "/profile")) {
    report = report || entry.path().extension() == ".json";
  }
  EXPECT_TRUE(report);
  fs::remove_all(dir);
}

// Two CPU ranks: rank 0 is profiled, and its wait for the gradients' allreduce is a phase of the step.
TEST(CliProfile, DataParallelProfilesRankZeroWithItsAllreduce) {
#ifndef WB_WITH_GLOO
  GTEST_SKIP() << WB_NO_GLOO_REASON;
#endif
  const std::string dir = tempDir("profile-dp");
  const auto r =
      runCli("profile " + smallRun(dir + "/runs") +
             " --set model.preset=mlp --set 'train.devices=[\"cpu\",\"cpu\"]' --steps 3 --warmup 2 --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("rank 0 of 2"), std::string::npos) << r.out;
  const std::string run = wb::test::onlyRunFolder(dir + "/runs");
  const nlohmann::json report = nlohmann::json::parse(readFile(run + "/profile/steps-3-5.json"));
  EXPECT_EQ(report["world_size"], 2);
  EXPECT_EQ(report["rank"], 0);
  EXPECT_TRUE(report["phases"].contains("allreduce")) << report["phases"].dump();
  fs::remove_all(dir);
}

TEST(CliProfile, BadRequestsAreRefusedWithTheReason) {
  const std::string dir = tempDir("profile-bad");
  const auto none = runCli("profile --steps 0");
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("--steps needs a whole number of steps, 1 or more"), std::string::npos) << none.err;
  const auto span = runCli("train --profile 10 " + smallRun(dir + "/runs"));
  EXPECT_EQ(span.status, 2);
  EXPECT_NE(span.err.find("START:N"), std::string::npos) << span.err;
  // 900 training samples (10% held out) of 32 in 1 epoch: 29 steps, the last one short; step 5001 is not
  // among them.
  const auto beyond = runCli("train " + smallRun(dir + "/runs") +
                             " --set model.preset=mlp --set train.epochs=1 --profile 5000:3 --quiet");
  EXPECT_EQ(beyond.status, 2);
  EXPECT_NE(beyond.err.find("step 5001 is beyond the run's 29 steps"), std::string::npos) << beyond.err;
  const auto short_run =
      runCli("profile " + smallRun(dir + "/runs") + " --set train.epochs=1 --steps 40 --warmup 0 --quiet");
  EXPECT_EQ(short_run.status, 0) << "fewer steps than asked: the report says how many" << short_run.err;
  EXPECT_NE(short_run.out.find("Profile of steps 1-29"), std::string::npos) << short_run.out;
  fs::remove_all(dir);
}

TEST(CliProfile, ACudaRunWithoutAGpuGetsTheMissingGpuMessage) {
  const std::string dir = tempDir("profile-cuda");
  const auto r =
      runCli("profile " + smallRun(dir + "/runs") + " --set 'train.devices=[\"cuda:4096\"]' --steps 2");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("train.devices[0]"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/runs") && !wb::test::onlyRunFolder(dir + "/runs").empty())
      << "refused before a run folder";
  fs::remove_all(dir);
}

}  // namespace
