// Runs that are never lost, end to end with the binary: kill -9 after a random (seeded, printed) checkpoint
// and resume → it continues at that checkpoint, trains only the remaining steps and ends with the same
// weights bit for bit; SIGTERM → a checkpoint, exit 143, status interrupted; the index after a crash.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "cli/cli_runner.h"
#include "support/model_weights.h"
#include "support/resumed_session.h"

namespace {

namespace fs = std::filesystem;
using wb::test::readFile;
using wb::test::runCli;
using wb::test::startCli;
using wb::test::tempDir;

// 1350 training samples / 50 = 27 steps an epoch, 54 in all; crop + flip on; two threads (the default).
// The CNN (batch norm buffers, ~2 s of training here) so that a step can be caught in flight.
std::string resumeArgs(const std::string& runs) {
  return "--set data.limit=1500 --set data.val_fraction=0.1 --set model.preset=cnn --set train.epochs=2 "
         "--set train.batch_size=50 --set train.log_every_steps=1 --set train.checkpoint_every_steps=5 "
         "--set train.checkpoint_every_minutes=0 --set data.augment=true --set output.runs_dir=" +
         runs;
}

// Waits until the run under `runs` has reported step `step`.
bool waitForStep(const std::string& runs, int64_t step, pid_t pid) {
  const std::string needle = "\"step\":" + std::to_string(step) + ",";
  for (int i = 0; i < 6000; ++i) {  // 60 s
    const std::string dir = wb::test::onlyRunFolder(runs);
    if (!dir.empty() && readFile(dir + "/metrics.jsonl").find(needle) != std::string::npos) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;  // it ended first
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Waits until the run under `runs` has logged its checkpoint of step `step` ("Checkpoint (...) at step K:").
bool waitForCheckpoint(const std::string& runs, int64_t step, pid_t pid) {
  const std::string needle = " at step " + std::to_string(step) + ":";
  for (int i = 0; i < 6000; ++i) {  // 60 s
    const std::string dir = wb::test::onlyRunFolder(runs);
    if (!dir.empty()) {
      const std::string log = readFile(dir + "/train.log");
      for (auto at = log.find("Checkpoint ("); at != std::string::npos;
           at = log.find("Checkpoint (", at + 1)) {
        if (log.substr(at, log.find('\n', at) - at).find(needle) != std::string::npos) return true;
      }
    }
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;  // it ended first
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

nlohmann::json runsJson(const std::string& runs) {
  const auto r = runCli("runs --runs-dir " + runs + " --json");
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CliResume, KilledAtARandomStepThenResumedEndsBitIdentical) {
  const std::string ref_runs = tempDir("resume-ref");
  const auto ref = runCli("train " + resumeArgs(ref_runs) + " --json --quiet");
  ASSERT_EQ(ref.status, 0) << ref.err;
  const std::string ref_dir = nlohmann::json::parse(ref.out)["run_dir"];

  // Killed after the checkpoint of a random multiple of 5 (checkpoint_every_steps), before the end. The seed
  // is printed; WB_TEST_SEED=<seed> repeats it.
  const char* seed_env = std::getenv("WB_TEST_SEED");
  const unsigned seed = seed_env ? static_cast<unsigned>(std::stoul(seed_env)) : std::random_device{}();
  std::mt19937 rng(seed);
  const int64_t checkpoint_step = 5 * std::uniform_int_distribution<int64_t>(1, 9)(rng);  // 5 to 45 of 54
  SCOPED_TRACE("seed " + std::to_string(seed) + ": killed after the checkpoint of step " +
               std::to_string(checkpoint_step));
  const std::string runs = tempDir("resume-kill");
  const pid_t pid = startCli("train " + resumeArgs(runs), runs + "/../resume-kill.out");
  ASSERT_TRUE(waitForCheckpoint(runs, checkpoint_step, pid)) << readFile(runs + "/../resume-kill.out");
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the run ended before it was killed";
  const std::string dir = wb::test::onlyRunFolder(runs);

  // The index after the crash: the run shows as interrupted, not as running forever.
  const nlohmann::json listed = runsJson(runs);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["status"], "interrupted");

  const auto resumed = runCli("resume " + dir + " --json --quiet");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  const auto summary = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["steps"], 54);
  EXPECT_EQ(summary["run_dir"], dir);
  wb::test::expectBitIdentical(ref_dir + "/model.pt", dir + "/model.pt");
  // Continued at the checkpoint waited for, or a later one written before the signal landed (every 5 steps
  // and at the epoch's end, 27), never from step 0; only the remaining steps were trained.
  const wb::test::ResumedSession session = wb::test::lastResumedSession(dir + "/metrics.jsonl");
  EXPECT_GE(session.continued_at, checkpoint_step);
  EXPECT_LT(session.continued_at, 54);
  EXPECT_TRUE(session.continued_at % 5 == 0 || session.continued_at == 27) << session.continued_at;
  EXPECT_EQ(session.first_step, session.continued_at + 1);
  EXPECT_EQ(session.step_events, 54 - session.continued_at);
  EXPECT_EQ(runsJson(runs)[0]["status"], "finished");

  const auto shown = runCli("runs show 1 --runs-dir " + runs);
  EXPECT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("finished"), std::string::npos) << shown.out;
  fs::remove_all(ref_runs);
  fs::remove_all(runs);
  fs::remove(runs + "/../resume-kill.out");
}

TEST(CliResume, SigtermWritesACheckpointAndMarksTheRunInterrupted) {
  const std::string runs = tempDir("resume-term");
  const pid_t pid = startCli("train " + resumeArgs(runs), runs + "/../resume-term.out");
  ASSERT_TRUE(waitForStep(runs, 3, pid));
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 143);
  const std::string dir = wb::test::onlyRunFolder(runs);
  const auto summary = nlohmann::json::parse(readFile(dir + "/summary.json"));
  EXPECT_EQ(summary["status"], "interrupted");
  ASSERT_TRUE(fs::exists(dir + "/checkpoints"));
  bool has_stop_checkpoint = false;
  for (const auto& entry : fs::directory_iterator(dir + "/checkpoints")) {
    has_stop_checkpoint |= entry.path().filename().string() ==
                           "step-" +
                               std::string(12 - std::to_string(summary["steps"].get<int>()).size(), '0') +
                               std::to_string(summary["steps"].get<int>()) + ".wbckpt";
  }
  EXPECT_TRUE(has_stop_checkpoint) << "no checkpoint at the step it stopped at";
  EXPECT_EQ(runsJson(runs)[0]["status"], "interrupted");

  // Two runs compared: the interrupted one resumed, against a fresh run with another learning rate.
  ASSERT_EQ(runCli("resume " + dir + " --quiet").status, 0);
  const auto other =
      runCli("train " + resumeArgs(runs) + " --set optimizer.lr=0.003 --set train.epochs=1 --quiet");
  ASSERT_EQ(other.status, 0) << other.err;
  const auto compared = runCli("runs compare 1 2 --runs-dir " + runs);
  ASSERT_EQ(compared.status, 0) << compared.err;
  EXPECT_NE(compared.out.find("optimizer.lr"), std::string::npos) << compared.out;
  EXPECT_NE(compared.out.find("train.epochs"), std::string::npos) << compared.out;
  EXPECT_NE(compared.out.find("test accuracy"), std::string::npos) << compared.out;
  fs::remove_all(runs);
  fs::remove(runs + "/../resume-term.out");
}

}  // namespace
