// `workbench-cli compress` as a user runs it: an experiment with a compress section trains, then compresses;
// the table and compress.json come out; `eval --model` reads an artifact; bad sections exit 2 naming the key.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;

using wb::test::runCli;
using wb::test::tempDir;
using Result = wb::test::CliResult;

TEST(CliCompress, TrainsThenCompressesAndEvaluatesAnArtifact) {
  const std::string runs = tempDir("compress");
  const std::string common = " --set data.limit=2000 --set model.preset=mlp --set train.epochs=1 --set data.augment=false"
                             " --set compress.latency_runs=3 --set output.runs_dir=" + runs;
  const Result r = runCli("compress --set 'compress.passes=[{\"type\":\"prune\",\"amount\":0.5},"
                          "{\"type\":\"finetune\",\"max_steps\":10}]'" + common + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["status"], "completed");
  ASSERT_EQ(j["artifacts"].size(), 3u);
  EXPECT_EQ(j["artifacts"][1]["name"], "01-prune");
  EXPECT_EQ(j["artifacts"][2]["name"], "02-finetune");
  EXPECT_EQ(j["artifacts"][2]["source"], "01-prune");
  EXPECT_LT(j["artifacts"][2]["nonzero_parameters"].get<int64_t>(), j["artifacts"][0]["nonzero_parameters"].get<int64_t>());
  const std::string run_dir = j["run_dir"];

  const Result e = runCli("eval " + run_dir + " --model compressed/02-finetune --json");
  ASSERT_EQ(e.status, 0) << e.err;
  EXPECT_NEAR(nlohmann::json::parse(e.out)["test_accuracy"].get<double>(),
              j["artifacts"][2]["test_accuracy"].get<double>(), 1e-9);

  // The table of the run's artifacts, without running anything.
  const Result list = runCli("compress " + run_dir + " --list");
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("00-original"), std::string::npos);
  EXPECT_NE(list.out.find("02-finetune"), std::string::npos);
  EXPECT_NE(list.out.find("smaller by"), std::string::npos);

  // An artifact that does not exist: exit 2, naming the ones that do.
  const Result missing = runCli("eval " + run_dir + " --model compressed/09-quantize");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("compressed/01-prune"), std::string::npos) << missing.err;

  // Bad sections on the finished run: exit 2 naming the key, before anything runs.
  const Result bad = runCli("compress " + run_dir + " --set 'compress.passes=[{\"type\":\"prune\",\"amount\":1.5}]'");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("compress.passes[0].amount"), std::string::npos) << bad.err;
  const Result order = runCli("compress " + run_dir + " --set 'compress.passes=[{\"type\":\"quantize\",\"mode\":"
                              "\"dynamic\"},{\"type\":\"finetune\"}]'");
  EXPECT_EQ(order.status, 2);
  EXPECT_NE(order.err.find("compress.passes[1]"), std::string::npos) << order.err;
  const Result teacher = runCli("compress " + run_dir + " --set 'compress.passes=[{\"type\":\"distill\",\"teacher\":"
                                "\"runs/nothing\"}]'");
  EXPECT_EQ(teacher.status, 2);
  EXPECT_NE(teacher.err.find("compress.passes[0].teacher"), std::string::npos) << teacher.err;
  const Result training_key = runCli("compress " + run_dir + " --set train.epochs=3");
  EXPECT_EQ(training_key.status, 2);
  EXPECT_NE(training_key.err.find("only compress.* keys"), std::string::npos) << training_key.err;
  const Result none = runCli("compress " + run_dir + " --set 'compress.passes=[]'");
  EXPECT_EQ(none.status, 2);
  fs::remove_all(runs);
}

}  // namespace
