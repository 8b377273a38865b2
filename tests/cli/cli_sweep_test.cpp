// `workbench-cli sweep`, end to end with the binary: a sweep with a bad key is refused before anything is
// queued; a grid is queued and trained as normal runs (one fails on an exploding learning rate, the others go
// on); `show` compares them and marks the best; `--write-best` writes its experiment, which trains alone.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "support/tiny_experiment.h"
#include "workbench/run_index.h"
#include "workbench/run_queue.h"

namespace {

namespace fs = std::filesystem;
using wb::test::runCli;
using wb::test::tempDir;

bool sweepSaid(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string writeSweepBase(const std::string& dir) {
  std::ofstream(dir + "/base.json") << wb::test::tinySyntheticExperiment(dir + "/runs").dump(2);
  return dir + "/base.json";
}

TEST(CliSweep, AGridRunsAsQueuedRunsAndTheBestIsShownAndWritten) {
  const std::string dir = tempDir("sweep");
  const std::string runs = dir + "/runs";
  const std::string base = writeSweepBase(dir);

  std::ofstream(dir + "/bad.json") << R"({"name": "bad", "keys": {"optimizer.nmae": ["adam", "sgd"]}})";
  const auto bad = runCli("sweep start " + base + " --sweep " + dir + "/bad.json");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(sweepSaid(bad.err, "optimizer.nmae")) << bad.err;
  EXPECT_TRUE(sweepSaid(bad.err, "did you mean \"name\"")) << bad.err;
  EXPECT_TRUE(wb::listQueue(runs).empty()) << "nothing is queued";

  std::ofstream(dir + "/grid.json") << R"({"name": "grid", "metric": "best_val_accuracy",
             "keys": {"optimizer.name": ["adam", "sgd"], "optimizer.lr": [0.003, 1e30]}})";
  const auto started = runCli("sweep start " + base + " --sweep " + dir + "/grid.json --run");
  ASSERT_EQ(started.status, 0) << started.out << started.err;
  EXPECT_TRUE(sweepSaid(started.out, "4 trials queued")) << started.out;
  EXPECT_TRUE(sweepSaid(started.out, "Queue finished: 2 done, 2 failed")) << started.out;
  EXPECT_EQ(wb::listRuns(runs).size(), 4u) << "each trial is a run in the index";
  for (const wb::RunRecord& r : wb::listRuns(runs)) {
    EXPECT_EQ(r.tags, std::vector<std::string>{"sweep:grid"}) << r.folder << ": tagged with its sweep";
  }

  const auto shown =
      runCli("sweep show grid --json --runs-dir " + runs + " --write-best " + dir + "/best.json");
  ASSERT_EQ(shown.status, 0) << shown.err;
  const auto table = nlohmann::json::parse(shown.out);
  ASSERT_EQ(table["trials"].size(), 4u);
  int best = 0, failed = 0;
  double best_metric = -1, other_metric = -1;
  for (const auto& t : table["trials"]) {
    EXPECT_TRUE(t["values"].contains("optimizer.lr")) << t.dump();
    if (t["state"] == "failed") {
      ++failed;
      EXPECT_EQ(t["values"]["optimizer.lr"], 1e30) << t.dump();
      EXPECT_TRUE(sweepSaid(t["message"], "loss")) << t.dump();
      continue;
    }
    EXPECT_EQ(t["state"], "done") << t.dump();
    ASSERT_TRUE(t["metric"].is_number()) << t.dump();
    if (t["best"]) {
      ++best;
      best_metric = t["metric"];
    } else {
      other_metric = t["metric"];
    }
  }
  EXPECT_EQ(failed, 2);
  EXPECT_EQ(best, 1);
  EXPECT_GE(best_metric, other_metric) << "the best is the highest accuracy";
  EXPECT_TRUE(table["best"].is_string());

  // "Clone best": the trial's experiment, trainable alone.
  ASSERT_TRUE(fs::exists(dir + "/best.json"));
  const auto best_doc = nlohmann::json::parse(std::ifstream(dir + "/best.json"));
  EXPECT_EQ(best_doc["name"], table["best"]);
  EXPECT_EQ(runCli("check " + dir + "/best.json").status, 0);

  const auto text = runCli("sweep show grid --runs-dir " + runs);
  EXPECT_TRUE(sweepSaid(text.out, "* " + table["best"].get<std::string>())) << text.out;
  const auto listed = runCli("sweep list --runs-dir " + runs);
  EXPECT_TRUE(sweepSaid(listed.out, "grid: 2 done, 2 failed")) << listed.out;
  // A second sweep of the same name is refused.
  EXPECT_EQ(runCli("sweep start " + base + " --sweep " + dir + "/grid.json").status, 2);
  fs::remove_all(dir);
}

// Early stopping (ASHA, eta 3, rungs at epochs 1 and 3 of 4): the first trial (a learning rate that learns)
// sets the bar at the first rung; the two that hardly learn fall below the top third there and stop after
// epoch 1, the reason in their logs and in the table; the sweep goes on to its end.
TEST(CliSweep, PoorTrialsStopAtTheirFirstRung) {
  const std::string dir = tempDir("sweep-asha");
  const std::string runs = dir + "/runs";
  nlohmann::json base = wb::test::tinySyntheticExperiment(runs);
  base["train"]["epochs"] = 4;
  base["data"]["val_fraction"] = 0.25;
  std::ofstream(dir + "/base.json") << base.dump(2);
  std::ofstream(dir + "/asha.json") << R"({"name": "asha", "keys": {"optimizer.lr": [0.01, 1e-7, 2e-7]},
             "early_stopping": {"rule": "asha", "eta": 3, "grace_epochs": 1}})";
  const auto started = runCli("sweep start " + dir + "/base.json --sweep " + dir + "/asha.json --run");
  ASSERT_EQ(started.status, 0) << started.out << started.err;
  EXPECT_TRUE(sweepSaid(started.out, "rungs at epochs 1, 3")) << started.out;
  const auto shown = runCli("sweep show asha --json --runs-dir " + runs);
  ASSERT_EQ(shown.status, 0) << shown.err;
  const auto table = nlohmann::json::parse(shown.out);
  ASSERT_EQ(table["trials"].size(), 3u);
  int stopped = 0;
  for (const auto& t : table["trials"]) {
    EXPECT_EQ(t["state"], "done") << t.dump();
    const std::string log = wb::test::readFile(t["run_folder"].get<std::string>() + "/train.log");
    if (t["values"]["optimizer.lr"] == 0.01) {
      EXPECT_EQ(t["message"], "") << t.dump();
      EXPECT_TRUE(sweepSaid(log, "ASHA rung at epoch 3")) << "judged at both rungs and went on: " << log;
      continue;
    }
    ++stopped;
    EXPECT_TRUE(sweepSaid(t["message"], "stopped at the ASHA rung at epoch 1: val_accuracy")) << t.dump();
    EXPECT_TRUE(sweepSaid(log, "this trial stops here")) << log;
    EXPECT_FALSE(sweepSaid(log, "ASHA rung at epoch 3")) << log;
  }
  EXPECT_EQ(stopped, 2);
  const auto text = runCli("sweep show asha --runs-dir " + runs);
  EXPECT_TRUE(sweepSaid(text.out, "stopped")) << text.out;
  fs::remove_all(dir);
}

}  // namespace
