// `workbench-cli eval`: per-class figures, the confusion matrix and the most confident mistakes, in text and
// JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;

using wb::test::runCli;
using wb::test::tempDir;

TEST(CliEval, JsonHasPerClassFiguresConfusionMatrixAndMistakes) {
  const std::string runs = tempDir("eval-report");
  const auto trained = runCli(
      "train --set train.epochs=1 --set data.limit=2000 --set model.preset=mlp "
      "--set train.batch_size=64 --set data.augment=false --set 'train.devices=[\"cpu\"]' "
      "--set output.runs_dir=" +
      runs + " --json");
  ASSERT_EQ(trained.status, 0) << trained.err;
  const std::string run_dir = nlohmann::json::parse(trained.out)["run_dir"];

  const auto e = runCli("eval " + run_dir + " --json --misclassified 5");
  ASSERT_EQ(e.status, 0) << e.err;
  const auto j = nlohmann::json::parse(e.out);
  EXPECT_EQ(j["task"], "classification");  // the report its task made
  EXPECT_EQ(j["samples"], 10000);
  ASSERT_EQ(j["class_names"].size(), 10u);
  EXPECT_EQ(j["class_names"][0], "T-shirt/top");
  ASSERT_EQ(j["confusion_matrix"].size(), 10u);
  int64_t sum = 0, diagonal = 0;
  for (size_t t = 0; t < 10; ++t) {
    ASSERT_EQ(j["confusion_matrix"][t].size(), 10u);
    for (size_t p = 0; p < 10; ++p) sum += j["confusion_matrix"][t][p].get<int64_t>();
    diagonal += j["confusion_matrix"][t][t].get<int64_t>();
  }
  EXPECT_EQ(sum, 10000);
  EXPECT_DOUBLE_EQ(static_cast<double>(diagonal) / 10000.0, j["test_accuracy"].get<double>());
  EXPECT_EQ(j["misclassified_total"], sum - diagonal);
  ASSERT_EQ(j["classes"].size(), 10u);
  for (const auto& c : j["classes"]) {
    for (const char* key : {"name", "precision", "recall", "f1", "support", "predicted", "correct"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
    EXPECT_NEAR(c["recall"].get<double>(), c["correct"].get<double>() / c["support"].get<double>(), 1e-12);
  }
  EXPECT_TRUE(j["macro_avg"].contains("f1"));
  ASSERT_EQ(j["misclassified"].size(), 5u);
  for (const auto& m : j["misclassified"]) {
    EXPECT_NE(m["true"], m["predicted"]);
    EXPECT_GE(m["index"].get<int64_t>(), 0);
    EXPECT_GT(m["confidence"].get<double>(), 0.0);
  }

  // The text form: the table, the matrix and the mistakes.
  const auto text = runCli("eval " + run_dir + " --misclassified 2");
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* part : {"test accuracy", "precision", "macro avg", "confusion matrix", "9  Ankle boot",
                           "2 most confident mistakes"}) {
    EXPECT_NE(text.out.find(part), std::string::npos) << part << "\n" << text.out;
  }
  const auto bad = runCli("eval " + run_dir + " --misclassified many");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--misclassified"), std::string::npos) << bad.err;
  fs::remove_all(runs);
}

}  // namespace
