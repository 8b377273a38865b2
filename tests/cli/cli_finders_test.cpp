// workbench-cli find-lr and find-batch as a user runs them: the table and the suggestion on stdout, --json,
// --plot,
// --apply writing a copy of the experiment with the suggested rate, and bad input refused with exit status 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"
#include "support/tiny_experiment.h"

namespace {

namespace fs = std::filesystem;

using wb::test::readFile;
using wb::test::runCli;
using wb::test::tempDir;
using Result = wb::test::CliResult;

std::string writeTinyExperiment(const std::string& dir) {
  nlohmann::json doc = wb::test::tinySyntheticExperiment(dir + "/runs");
  doc["name"] = "tiny";
  doc["train"].erase("epochs");
  const std::string file = dir + "/tiny.json";
  std::ofstream(file) << doc.dump(2);
  return file;
}

TEST(CliFinders, FindLrPrintsTheCurveAndTheSuggestionAndApplyWritesACopy) {
  const std::string dir = tempDir("find-lr");
  const std::string experiment = writeTinyExperiment(dir);
  const std::string before = readFile(experiment);

  const Result json = runCli("find-lr " + experiment + " --steps 80 --json --plot " + dir + "/lr.csv");
  ASSERT_EQ(json.status, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);  // stdout is exactly the object
  ASSERT_TRUE(j["suggested_lr"].is_number()) << j.dump(2);
  const double suggested = j["suggested_lr"];
  EXPECT_GT(suggested, 1e-7);
  EXPECT_LT(suggested, 10);
  EXPECT_TRUE(j["rule"] == "steepest" || j["rule"] == "min/10") << j["rule"];
  const auto& points = j["points"];
  ASSERT_EQ(points.size(), j["steps_run"].get<size_t>());
  EXPECT_GE(points.size(), 20u);
  EXPECT_EQ(points[0]["lr"].get<double>(), 1e-7);
  EXPECT_TRUE(j["stop"] == "diverged" || j["stop"] == "completed") << j["stop"];
  // --plot: a header and one row per point.
  const std::string csv = readFile(dir + "/lr.csv");
  EXPECT_EQ(csv.rfind("step,lr,loss,smoothed_loss\n", 0), 0u) << csv.substr(0, 80);
  EXPECT_EQ(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')), points.size() + 1);

  // Text: a sparse table with the suggestion marked, the stop reason, the rate and its rule; --apply writes a
  // copy.
  const Result text = runCli("find-lr " + experiment + " --steps 80 --apply " + dir + "/tuned.json");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("Suggested learning rate:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("rule:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("<- suggested"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Stopped after"), std::string::npos) << text.out;
  EXPECT_LT(std::count(text.out.begin(), text.out.end(), '\n'), 30);  // sparse, not 80 rows
  std::ifstream tuned_in(dir + "/tuned.json");
  const auto tuned = nlohmann::json::parse(tuned_in);
  EXPECT_EQ(tuned["optimizer"]["lr"].get<double>(),
            suggested);  // the same seed: the same curve and suggestion
  EXPECT_EQ(tuned["train"]["batch_size"], 32);
  EXPECT_EQ(readFile(experiment), before);  // the experiment file itself is untouched
  EXPECT_TRUE(!fs::exists(dir + "/runs") || fs::is_empty(dir + "/runs"));  // and no run was made

  // --apply onto the experiment itself is refused.
  const Result self = runCli("find-lr " + experiment + " --apply " + experiment);
  EXPECT_EQ(self.status, 2);
  EXPECT_NE(self.err.find("never overwrites"), std::string::npos) << self.err;
  fs::remove_all(dir);
}

TEST(CliFinders, FindBatchPrintsEachSizeAndTheLargestThatFits) {
  const std::string dir = tempDir("find-batch");
  const std::string experiment = writeTinyExperiment(dir);
  const Result json = runCli("find-batch " + experiment + " --max-memory 64GiB --max-batch 64 --json");
  ASSERT_EQ(json.status, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["largest"], 64);
  EXPECT_EQ(j["suggested"], 64);
  EXPECT_EQ(j["limit_bytes"].get<int64_t>(), int64_t{64} << 30);
  ASSERT_EQ(j["trials"].size(), 7u);  // 1, 2, ..., 64
  for (const auto& t : j["trials"]) {
    EXPECT_EQ(t["outcome"], "fits");
    EXPECT_GT(t["peak_bytes"].get<int64_t>(), 0);
    EXPECT_GT(t["samples_per_sec"].get<double>(), 0);
  }

  const Result text = runCli("find-batch " + experiment + " --max-memory 64GiB --max-batch 16");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("Largest batch that fits: 16"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("--set train.batch_size=16"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("samples/s"), std::string::npos) << text.out;
  fs::remove_all(dir);
}

TEST(CliFinders, BadInputExitsWithTwoAndSaysWhatIsWrong) {
  const std::string dir = tempDir("finders-bad");
  const std::string experiment = writeTinyExperiment(dir);
  const Result typo = runCli("find-lr " + experiment + " --set optimizer.lrr=0.1");
  EXPECT_EQ(typo.status, 2);
  EXPECT_NE(typo.err.find("optimizer.lrr"), std::string::npos) << typo.err;

  const Result missing = runCli("find-batch " + dir + "/nowhere.json");
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("nowhere.json"), std::string::npos) << missing.err;

  const Result no_data =
      runCli("find-lr " + experiment + " --set data.dataset=mnist --set data.path=" + dir + "/none");
  EXPECT_EQ(no_data.status, 2);
  EXPECT_NE(no_data.err.find("data."), std::string::npos) << no_data.err;

  const Result size = runCli("find-batch " + experiment + " --max-memory lots");
  EXPECT_EQ(size.status, 2);
  EXPECT_NE(size.err.find("--max-memory"), std::string::npos) << size.err;

  const Result range = runCli("find-lr " + experiment + " --start 1 --end 0.1");
  EXPECT_EQ(range.status, 2);
  EXPECT_NE(range.err.find("end learning rate"), std::string::npos) << range.err;

  const Result steps = runCli("find-lr " + experiment + " --steps many");
  EXPECT_EQ(steps.status, 2);
  EXPECT_NE(steps.err.find("--steps"), std::string::npos) << steps.err;

  const Result help = runCli("help find-lr");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("range test"), std::string::npos) << help.out;
  fs::remove_all(dir);
}

}  // namespace
