// A new user's first try, as the README gives it, and what the defaults say about themselves: the run's log
// starts with its recipe, and `runs compare` marks the values that were left at their defaults.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;

using wb::test::readFile;
using wb::test::runCli;
using wb::test::tempDir;

// The line of `text` that holds `key`, or "".
std::string lineWith(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(key) != std::string::npos) return line;
  }
  return "";
}

// With the defaults a PyTorch user expects (no augmentation, a constant learning rate), the MLP on 10,000
// images for one epoch learns what the same loop in plain PyTorch learns: 0.76-0.80 over seeds
// (bench/quick_try_reference.py), 0.79 here. The defaults tuned for the 15-epoch CNN (crop + flip, cosine
// decay to zero within the one epoch, weight decay 0.05) gave 0.71.
TEST(CliQuickTry, TheReadmesFirstTryLearnsWhatPlainPyTorchLearns) {
  const std::string runs = tempDir("quick-try");
  const auto r = runCli(
      "train --set model.preset=mlp --set data.limit=10000 --set train.epochs=1 "
      "--set 'train.devices=[\"cpu\"]' --set output.runs_dir=" +
      runs + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_GE(summary["test_accuracy"].get<double>(), 0.78) << r.err;

  // The log's first lines: the folder, then the recipe, each setting with the key that changes it.
  const std::string log = readFile(summary["run_dir"].get<std::string>() + "/train.log");
  std::istringstream lines(log);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_NE(first.find("Run folder: "), std::string::npos) << log;
  EXPECT_EQ(
      second,
      "[info] Recipe: augmentation off (data.augment, default) · validation 10% of the training split held "
      "out (data.val_fraction, default) · schedule constant, lr 0.001 (schedule.name, default)")
      << log;
  fs::remove_all(runs);
}

TEST(CliQuickTry, RunsCompareMarksTheValuesLeftAtTheirDefaults) {
  const std::string runs = tempDir("compare-defaults");
  const std::string common =
      "train --set model.preset=mlp --set data.limit=640 --set train.max_steps=3 "
      "--set 'train.devices=[\"cpu\"]' --quiet --set output.runs_dir=" +
      runs;
  const auto plain = runCli(common);
  ASSERT_EQ(plain.status, 0) << plain.err;
  const auto tuned = runCli(common +
                            " --set data.augment=true --set schedule.name=cosine "
                            "--set optimizer.name=sgd --set optimizer.momentum=0.9");
  ASSERT_EQ(tuned.status, 0) << tuned.err;

  // The second run's recipe names what it switched on, without "default".
  std::string log;
  for (const auto& entry : fs::directory_iterator(runs)) {
    if (entry.is_directory() && fs::exists(entry.path() / "train.log")) {
      const std::string text = readFile((entry.path() / "train.log").string());
      if (text.find("horizontal flip") != std::string::npos) log = text;
    }
  }
  EXPECT_NE(
      lineWith(log, "Recipe: ")
          .find(
              "augmentation random crop (padding 2 px) + horizontal flip (data.augment) · validation 10% of "
              "the training split held out (data.val_fraction, default) · schedule cosine from lr 0.001 to 0 "
              "over the whole run (schedule.name)"),
      std::string::npos)
      << log;

  const auto compared = runCli("runs compare 1 2 --runs-dir " + runs);
  ASSERT_EQ(compared.status, 0) << compared.err;
  const std::string& out = compared.out;
  EXPECT_NE(lineWith(out, "data.augment.enabled").find("false (default)"), std::string::npos) << out;
  EXPECT_EQ(lineWith(out, "data.augment.enabled").find("true (default)"), std::string::npos) << out;
  EXPECT_NE(lineWith(out, "optimizer.momentum").find("0.0 (default)"), std::string::npos) << out;
  EXPECT_NE(lineWith(out, "schedule.name").find("\"constant\" (default)"), std::string::npos) << out;
  EXPECT_EQ(lineWith(out, "optimizer.name").find("\"sgd\" (default)"), std::string::npos) << out;
  // SGD's torch default learning rate is what the first run's AdamW had, so lr does not differ; its weight
  // decay does (AdamW's 0.01 against SGD's 0): both are defaults, each for its optimizer.
  EXPECT_NE(lineWith(out, "optimizer.weight_decay").find("0.01 (default)"), std::string::npos) << out;
  EXPECT_NE(lineWith(out, "optimizer.weight_decay").find("0.0 (default)"), std::string::npos) << out;
  EXPECT_NE(out.find("(default): the key's default value"), std::string::npos) << out;
  fs::remove_all(runs);
}

}  // namespace
