// What a new user trips over (issue: check passes what train refuses, and five more): each message names the
// right command and key, and commands that write no run leave no trace.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using wb::test::runCli;
using wb::test::tempDir;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::string kSmall =
    " --example mlp --set data.limit=1000 --set train.epochs=1 --set schedule.warmup_steps=0";

// `check` makes the checks `train` makes, the schedule against the run's real length included, and both
// refuse before a run folder exists, naming the key to change.
TEST(CliMessages, CheckRefusesWhatTrainRefusesBeforeAnyRunFolder) {
  const std::string runs = tempDir("msg-check") + "/runs";
  // The README's shortened line with 100 warmup steps (the mlp example's old value): 4,500 samples of 64 are
  // 71 steps.
  const std::string sets =
      " --example mlp --set train.epochs=1 --set data.limit=5000 --set model.preset=mlp "
      "--set schedule.warmup_steps=100 --set output.runs_dir=" +
      runs;
  const auto check = runCli("check" + sets);
  EXPECT_EQ(check.status, 2) << check.out << check.err;
  EXPECT_TRUE(has(check.err, "schedule.warmup_steps")) << check.err;
  EXPECT_TRUE(has(check.err, "71 steps")) << check.err;
  EXPECT_TRUE(has(check.err, "lower schedule.warmup_steps below 71")) << check.err;
  const auto train = runCli("train --quiet" + sets);
  EXPECT_EQ(train.status, 2);
  EXPECT_TRUE(has(train.err, "lower schedule.warmup_steps below 71")) << train.err;
  EXPECT_FALSE(fs::exists(runs)) << "a refused run left a runs folder";
  // The same line with the example as shipped (50 warmup steps) trains.
  EXPECT_EQ(runCli("check --example mlp --set train.epochs=1 --set data.limit=5000 --set model.preset=mlp "
                   "--set output.runs_dir=" +
                   runs)
                .status,
            0);
}

// check, bench and find-lr write no run: no runs folder appears where none was.
TEST(CliMessages, CommandsThatWriteNoRunMakeNoRunsFolder) {
  const std::string dir = tempDir("msg-side-effects");
  auto run = [&](const std::string& args) { return wb::test::runCliAfter("cd " + dir + " &&", args); };
  EXPECT_EQ(run("check --example mlp").status, 0);
  EXPECT_EQ(run("bench --example mlp --steps 3 --warmup 1 --set data.limit=1000").status, 0);
  const auto lr = run("find-lr --example mlp --set data.limit=1000 --steps 10");
  EXPECT_EQ(lr.status, 0) << lr.err;
  EXPECT_FALSE(fs::exists(dir + "/runs")) << "a command that writes no run made " << dir << "/runs";
}

class CliRunFolders : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_runs = tempDir("msg-runs") + "/runs";
    const auto finished = runCli("train --quiet --json" + kSmall + " --set output.runs_dir=" + s_runs);
    ASSERT_EQ(finished.status, 0) << finished.err;
    s_finished = nlohmann::json::parse(finished.out)["run_dir"];
    // Stopped after its first checkpoint.
    const pid_t pid = wb::test::startCli(
        "train --example mlp --set data.limit=20000 --set train.checkpoint_every_steps=10"
        " --set output.runs_dir=" +
            s_runs,
        s_runs + "/../interrupted.log");
    for (int i = 0; i < 600 && s_interrupted.empty(); ++i) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(s_runs, ec)) {
        if (e.path() != s_finished && !fs::is_empty(e.path() / "checkpoints", ec) && !ec)
          s_interrupted = e.path();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    // A run that fails mid-way: the loss overflows.
    const auto failed =
        runCli("train --quiet --json" + kSmall + " --set optimizer.lr=1e30 --set output.runs_dir=" + s_runs);
    s_failed = nlohmann::json::parse(failed.out, nullptr, false).value("run_dir", std::string());
  }
  static std::string s_runs, s_finished, s_interrupted, s_failed;
};
std::string CliRunFolders::s_runs, CliRunFolders::s_finished, CliRunFolders::s_interrupted,
    CliRunFolders::s_failed;

TEST_F(CliRunFolders, ResumeOfAFinishedRunSaysSoAndReportsNoFailure) {
  const auto r = runCli("resume " + s_finished);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "nothing to resume")) << r.err;
  EXPECT_TRUE(has(r.err, "completed at step")) << r.err;
  EXPECT_FALSE(has(r.out + r.err, "failed after")) << r.out << r.err;
}

TEST_F(CliRunFolders, EvalOfAFolderThatIsNotARunSaysSo) {
  const std::string folder = s_runs + "/../not-a-run";
  fs::create_directories(folder);
  const auto r = runCli("eval " + folder);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "is not a run folder")) << r.err;
  EXPECT_FALSE(has(r.err, "default experiment")) << r.err;
  const auto missing = runCli("eval " + s_runs + "/../no-such-folder");
  EXPECT_EQ(missing.status, 2);
  EXPECT_TRUE(has(missing.err, "Run folder not found")) << missing.err;
}

TEST_F(CliRunFolders, AnUnfinishedRunIsExportedAndEvaluatedOnlyOnPurposeSayingWhichStep) {
  ASSERT_FALSE(s_interrupted.empty());
  const std::string out = s_runs + "/../part.safetensors";
  const auto refused = runCli("export " + s_interrupted + " --format safetensors --out " + out);
  EXPECT_EQ(refused.status, 2);
  EXPECT_TRUE(has(refused.err, "has not finished (interrupted at step")) << refused.err;
  EXPECT_TRUE(has(refused.err, "--allow-unfinished")) << refused.err;
  EXPECT_TRUE(has(refused.err, "workbench-cli resume " + s_interrupted)) << refused.err;
  EXPECT_FALSE(fs::exists(out));
  const auto allowed =
      runCli("export " + s_interrupted + " --format safetensors --out " + out + " --allow-unfinished");
  EXPECT_EQ(allowed.status, 0) << allowed.err;
  EXPECT_TRUE(has(allowed.err, "warning: the run is interrupted at step")) << allowed.err;
  EXPECT_TRUE(fs::exists(out));
  const auto eval_refused = runCli("eval " + s_interrupted);
  EXPECT_EQ(eval_refused.status, 2);
  EXPECT_TRUE(has(eval_refused.err, "eval " + s_interrupted + " --allow-unfinished")) << eval_refused.err;
  const auto eval_allowed = runCli("eval " + s_interrupted + " --allow-unfinished --json");
  EXPECT_EQ(eval_allowed.status, 0) << eval_allowed.err;
  EXPECT_TRUE(has(eval_allowed.err, "part-trained model of step")) << eval_allowed.err;
  EXPECT_TRUE(has(nlohmann::json::parse(eval_allowed.out).value("note", ""), "interrupted at step"));
  // A finished run: no note.
  const auto finished = runCli("eval " + s_finished + " --json");
  EXPECT_EQ(finished.status, 0);
  EXPECT_FALSE(nlohmann::json::parse(finished.out).contains("note"));
}

TEST_F(CliRunFolders, ExportOfAFailedRunSaysItFailedAndWhereToLook) {
  ASSERT_FALSE(s_failed.empty());
  const auto r = runCli("export " + s_failed + " --format torchscript --out " + s_runs + "/../failed.pt");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "failed after")) << r.err;
  EXPECT_TRUE(has(r.err, "no trained model to export")) << r.err;
  EXPECT_TRUE(has(r.err, "train.log")) << r.err;
  EXPECT_FALSE(has(r.err, "Compress")) << r.err;
}

TEST_F(CliRunFolders, RunsOfAFolderThatDoesNotExistSaysSo) {
  const auto r = runCli("runs --runs-dir " + s_runs + "/../nope");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "does not exist")) << r.err;
  const auto listed = runCli("runs --runs-dir " + s_runs);
  EXPECT_EQ(listed.status, 0);
  EXPECT_TRUE(has(listed.out, "interrupted")) << listed.out;
}

}  // namespace
