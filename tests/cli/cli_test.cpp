// End to end: the workbench-cli binary as a user runs it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;

using wb::test::runCli;
using wb::test::tempDir;
using Result = wb::test::CliResult;

TEST(Cli, TrainsAFashionMnistSubsetEndToEndThenEvaluates) {
  const std::string runs = tempDir("train");
  // The issue's own overrides, plus a smaller batch and no augmentation so one short epoch learns enough
  // for a meaningful bound (with batch 128 and crop+flip the MLP gets ~0.65 in its 36 steps).
  const Result r = runCli(
      "train --set train.epochs=1 --set data.limit=5000 --set model.preset=mlp "
      "--set train.batch_size=64 --set data.augment=false "
      "--set 'train.devices=[\"cpu\"]' --set output.runs_dir=" +
      runs + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);  // stdout is exactly the JSON object
  for (const char* key : {"run_dir", "test_accuracy", "test_loss", "samples_per_sec"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  // The MLP on 4500 Fashion-MNIST images for one epoch: ~0.76; anything under 0.7 means it did not learn.
  EXPECT_GT(j["test_accuracy"].get<double>(), 0.7);
  EXPECT_LT(j["test_loss"].get<double>(), 0.9);
  EXPECT_EQ(j["status"], "completed");
  const std::string run_dir = j["run_dir"];
  EXPECT_TRUE(fs::exists(run_dir + "/model.pt"));
  EXPECT_NE(r.err.find("epoch 1/1"), std::string::npos);  // progress went to stderr

  const Result e = runCli("eval " + run_dir + " --json");
  ASSERT_EQ(e.status, 0) << e.err;
  EXPECT_NEAR(nlohmann::json::parse(e.out)["test_accuracy"].get<double>(), j["test_accuracy"].get<double>(),
              1e-9);
  fs::remove_all(runs);
}

// Every command here must be refused; each is also bounded (one step, a small subset, a temporary runs
// folder) so that one accepted by mistake (a machine with a GPU accepts a cuda device) cannot start the
// 15-epoch default run into ./runs.
TEST(Cli, BadInputExitsWithTwoAndNamesTheKey) {
  const std::string dir = tempDir("bad");
  const std::string bounded =
      " --set train.max_steps=1 --set data.limit=200 --set output.runs_dir=" + dir + "/runs";
  const Result typo = runCli("train --set trian.epochs=1" + bounded);
  EXPECT_EQ(typo.status, 2);
  EXPECT_NE(typo.err.find("trian"), std::string::npos) << typo.err;
  EXPECT_NE(typo.err.find("train"), std::string::npos) << typo.err;

  const Result range = runCli("train --set train.batch_size=0" + bounded);
  EXPECT_EQ(range.status, 2);
  EXPECT_NE(range.err.find("train.batch_size"), std::string::npos) << range.err;

  std::ofstream(dir + "/broken.json") << "{\"train\": {\"epochs\": 2,,}}";
  const Result broken = runCli(dir + "/broken.json");
  EXPECT_EQ(broken.status, 2);  // "broken.json" was taken as the command: unknown command
  const Result broken_train = runCli("train " + dir + "/broken.json" + bounded);
  EXPECT_EQ(broken_train.status, 2);
  EXPECT_NE(broken_train.err.find("broken.json"), std::string::npos) << broken_train.err;

  const Result missing_data =
      runCli("train --set data.dataset=mnist --set data.path=" + dir + "/nowhere" + bounded);
  EXPECT_EQ(missing_data.status, 2);
  EXPECT_NE(missing_data.err.find("data."), std::string::npos) << missing_data.err;

  // A device no machine has: refused with or without CUDA ("no CUDA GPU" or "does not exist").
  const Result no_gpu = runCli("train --set 'train.devices=[\"cuda:4096\"]'" + bounded);
  EXPECT_EQ(no_gpu.status, 2);
  EXPECT_NE(no_gpu.err.find("train.devices[0]"), std::string::npos) << no_gpu.err;
  if (fs::exists(dir + "/runs")) {
    for (const auto& entry : fs::directory_iterator(dir + "/runs")) {
      EXPECT_FALSE(entry.is_directory()) << "a refused run wrote a run folder: " << entry.path();
    }
  }
  fs::remove_all(dir);
}

size_t countOf(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
  return count;
}

// An error of a run is printed once, on stderr, whether quiet, with --json, both or neither (quiet once
// printed it itself besides the progress printer; the cause must also not be replaced by a later error).
TEST(Cli, AnErrorIsPrintedOnceOnStderrInEveryMode) {
  const std::string dir = tempDir("error-once");
  for (const char* mode : {"--quiet", "", "--json", "--json --quiet"}) {
    SCOPED_TRACE(std::string("mode \"") + mode + "\"");
    const Result r = runCli("resume " + dir + "/no-such-run " + mode);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(countOf(r.err, "is not a run folder"), 1u) << r.err;
    EXPECT_EQ(countOf(r.err, "what to do:"), 1u) << r.err;
    EXPECT_EQ(countOf(r.out, "is not a run folder"),
              std::string(mode).find("--json") != std::string::npos ? 1u : 0u)
        << r.out;  // --json: the object on stdout names it once
  }
  // An error during training (the loss became NaN at a huge learning rate).
  const Result nan = runCli(
      "train --set optimizer.lr=1e12 --set model.preset=mlp --set data.limit=600 "
      "--set train.max_steps=10 --set 'train.devices=[\"cpu\"]' --set output.runs_dir=" +
      dir + "/runs --quiet");
  EXPECT_EQ(nan.status, 1);
  EXPECT_EQ(countOf(nan.err, "error: "), 1u) << nan.err;
  EXPECT_EQ(countOf(nan.err, "The training loss became"), 1u) << nan.err;
  EXPECT_TRUE(nan.out.empty()) << nan.out;
  fs::remove_all(dir);
}

TEST(Cli, EvalOfSomethingThatIsNotARunSaysSo) {
  const std::string dir = tempDir("notarun");
  const Result r = runCli("eval " + dir);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(dir), std::string::npos) << r.err;
  fs::remove_all(dir);
}

TEST(Cli, BenchPrintsThroughput) {
  const Result r = runCli("bench --steps 5 --warmup 1 --set model.preset=mlp --set data.limit=2000 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["samples_per_sec"].get<double>(), 0);
  EXPECT_EQ(j["steps"], 5);
}

TEST(Cli, HelpForEachCommandAndUnknownCommands) {
  for (const char* cmd : {"--help", "train --help", "eval --help", "bench --help", "info --help"}) {
    const Result r = runCli(cmd);
    EXPECT_EQ(r.status, 0) << cmd;
    EXPECT_NE(r.out.find("usage: workbench-cli"), std::string::npos) << cmd;
  }
  EXPECT_EQ(runCli("frobnicate").status, 2);
  EXPECT_EQ(runCli("train --no-such-flag").status, 2);
}

}  // namespace
