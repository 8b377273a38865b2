// A running `workbench-cli train` controlled from another shell: `workbench-cli control RUN_DIR --lr-scale
// 0.5` halves the learning rate from the next step on (an event in metrics.jsonl and train.log, the new rate
// in the step metrics); SIGUSR1 writes a checkpoint; SIGUSR2 ends the run at the end of the epoch in
// progress, interrupted and resumable. A finished run and a bad value are refused with a message.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using wb::test::readFile;
using wb::test::runCli;
using wb::test::startCli;
using wb::test::tempDir;

// 1,800 training samples of 32: 57 steps an epoch; 100 epochs, so the run is still going when it is
// controlled (SIGUSR2 ends it long before). A constant learning rate of 0.001, so a halving reads as 0.0005.
std::string liveControlArgs(const std::string& runs) {
  return "--set data.limit=2000 --set data.val_fraction=0.1 --set model.preset=mlp --set train.epochs=100 "
         "--set train.batch_size=32 --set train.log_every_steps=1 --set train.checkpoint_every_minutes=0 "
         "--set schedule.name=constant --set schedule.warmup_steps=0 --set optimizer.lr=0.001 "
         "--set output.runs_dir=" +
         runs;
}

// Waits (up to 60 s) until `file` in the run folder contains `needle`; false if the process ended first.
bool waitFor(const std::string& runs, const std::string& file, const std::string& needle, pid_t pid) {
  for (int i = 0; i < 6000; ++i) {
    const std::string dir = wb::test::onlyRunFolder(runs);
    if (!dir.empty() && readFile(dir + "/" + file).find(needle) != std::string::npos) return true;
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

std::vector<nlohmann::json> events(const std::string& metrics_jsonl, const std::string& type) {
  std::vector<nlohmann::json> out;
  std::istringstream in(readFile(metrics_jsonl));
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value("event", "") == type) out.push_back(j);
  }
  return out;
}

TEST(CliLiveControl, ControlHalvesTheLearningRateAndSignalsCheckpointAndStopAfterTheEpoch) {
  const std::string runs = tempDir("live-control");
  const std::string out_file = runs + "/../live-control.out";
  const pid_t pid = startCli("train " + liveControlArgs(runs), out_file);
  ASSERT_TRUE(waitFor(runs, "metrics.jsonl", "\"step\":5,", pid)) << readFile(out_file);
  const std::string dir = wb::test::onlyRunFolder(runs);

  const auto halved = runCli("control " + dir + " --lr-scale 0.5");
  ASSERT_EQ(halved.status, 0) << halved.out << halved.err;
  EXPECT_NE(halved.out.find("learning rate ×0.5 (now 0.0005), requested via workbench-cli control"),
            std::string::npos)
      << halved.out;
  EXPECT_FALSE(fs::exists(dir + "/control") && !fs::is_empty(dir + "/control"));  // taken and removed

  ASSERT_EQ(::kill(pid, SIGUSR1), 0);
  ASSERT_TRUE(waitFor(runs, "train.log", "Checkpoint (requested)", pid));
  ASSERT_EQ(::kill(pid, SIGUSR2), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << readFile(out_file);

  const auto summary = nlohmann::json::parse(readFile(dir + "/summary.json"));
  EXPECT_EQ(summary["status"], "interrupted");
  const int64_t steps = summary["steps"].get<int64_t>();
  EXPECT_GT(steps, 0);
  EXPECT_EQ(steps % 57, 0) << "not at an epoch's end";
  EXPECT_LT(steps, 100 * 57);

  const auto controls = events(dir + "/metrics.jsonl", "control");
  ASSERT_EQ(controls.size(), 2u);
  EXPECT_EQ(controls[0]["kind"], "lr_scale");
  EXPECT_EQ(controls[0]["value"], 0.5);
  EXPECT_EQ(controls[0]["source"], "workbench-cli control");
  EXPECT_EQ(controls[1]["kind"], "stop_after_epoch");
  EXPECT_EQ(controls[1]["source"], "SIGUSR2");
  EXPECT_EQ(controls[1]["value"].get<double>(), static_cast<double>(steps / 57));
  const int64_t at = controls[0]["step"].get<int64_t>();
  int64_t halved_steps = 0;
  for (const auto& m : events(dir + "/metrics.jsonl", "step")) {
    const int64_t step = m["step"].get<int64_t>();
    EXPECT_EQ(m["lr"].get<double>(), step - 1 >= at ? 0.0005 : 0.001)
        << "step " << step << ", change at " << at;
    halved_steps += step - 1 >= at;
  }
  EXPECT_GT(halved_steps, 0);
  EXPECT_NE(readFile(dir + "/train.log").find(controls[0]["message"].get<std::string>()), std::string::npos);
  EXPECT_NE(readFile(out_file).find("learning rate ×0.5"),
            std::string::npos);  // the training shell shows it too

  // Nothing to control any more; and a value that cannot be a learning rate.
  const auto finished = runCli("control " + dir + " --lr 0.01");
  EXPECT_EQ(finished.status, 2);
  EXPECT_NE(finished.err.find("is not training now (interrupted)"), std::string::npos) << finished.err;
  const auto negative = runCli("control " + dir + " --lr-scale -1");
  EXPECT_EQ(negative.status, 2);
  EXPECT_NE(negative.err.find("greater than 0"), std::string::npos) << negative.err;
  fs::remove_all(runs);
  fs::remove(out_file);
}

}  // namespace
