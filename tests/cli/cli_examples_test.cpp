// The example experiments (resources/examples, installed to share/torch-workbench/examples): each one is
// listed with a description, passes every check, and trains (a few steps) through the CLI from any working
// folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;

using wb::test::runCli;
using wb::test::tempDir;

const fs::path kExamplesDir = fs::path(WB_SOURCE_DIR) / "resources" / "examples";

nlohmann::json listedExamples() {
  const auto r = runCli("examples --json");
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CliExamples, EveryExampleFileIsListedWithATitleAndADescription) {
  const nlohmann::json listed = listedExamples();
  std::set<std::string> ids;
  for (const auto& e : listed) {
    ids.insert(e["id"].get<std::string>());
    EXPECT_FALSE(e["title"].get<std::string>().empty()) << e.dump();
    EXPECT_GT(e["description"].get<std::string>().size(), 40u) << e.dump();
    EXPECT_TRUE(fs::exists(e["file"].get<std::string>())) << e.dump();
  }
  std::set<std::string> files;
  for (const auto& entry : fs::directory_iterator(kExamplesDir)) {
    if (entry.path().extension() == ".json" && entry.path().filename() != "index.json") {
      files.insert(entry.path().stem().string());
    }
  }
  EXPECT_EQ(ids, files) << "resources/examples/index.json and the example files differ";
  for (const char* id : {"mlp", "cnn", "resnet", "vit", "csv-spirals", "cnn-prune-quantize"}) {
    EXPECT_EQ(ids.count(id), 1u) << id;
  }
}

TEST(CliExamples, EveryExamplePassesTheChecks) {
  for (const auto& e : listedExamples()) {
    const std::string id = e["id"];
    const auto r = runCli("check --example " + id);
    EXPECT_EQ(r.status, 0) << id << ": " << r.err;
    EXPECT_NE(r.out.find("valid"), std::string::npos) << r.out;
  }
}

TEST(CliExamples, PrintedExampleHasAbsoluteDataPathsAndTrainsFromAnotherFolder) {
  const std::string dir = tempDir("example-copy");
  const auto printed = runCli("examples csv-spirals");
  ASSERT_EQ(printed.status, 0) << printed.err;
  const nlohmann::json doc = nlohmann::json::parse(printed.out);
  const std::string data = doc["data"]["path"];
  EXPECT_TRUE(fs::path(data).is_absolute()) << data;
  EXPECT_TRUE(fs::exists(data)) << data;
  // The copy is an ordinary experiment file: it trains wherever it is saved.
  { std::ofstream(dir + "/my-spirals.json") << printed.out; }
  const auto r =
      runCli("train " + dir + "/my-spirals.json --set train.epochs=20 --set output.runs_dir=" + dir +
             "/runs --quiet --json");
  ASSERT_EQ(r.status, 0) << r.err;
  // Three spirals are not linearly separable (a linear model gets ~0.5); the two hidden layers learn them.
  EXPECT_GT(nlohmann::json::parse(r.out)["test_accuracy"].get<double>(), 0.9);
  fs::remove_all(dir);
}

TEST(CliExamples, UnknownExampleIsNamedWithASuggestion) {
  const auto r = runCli("train --example resnte --set train.max_steps=1");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("'resnte'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'resnet'"), std::string::npos) << r.err;
}

// A tiny run of each: two optimizer steps on a few hundred images, then the test split. The compression
// example goes through `compress`, its passes cut short the same way.
TEST(CliExamples, EveryExampleTrainsAFewSteps) {
  const std::string dir = tempDir("examples-run");
  // No warmup: the examples' warmups are longer than two steps (a schedule the checks rightly refuse).
  const std::string tiny =
      " --set train.max_steps=2 --set data.limit=256 --set train.checkpoint_every_minutes=0"
      " --set schedule.warmup_steps=0 --set output.runs_dir=" +
      dir + "/runs --quiet --json";
  for (const auto& e : listedExamples()) {
    const std::string id = e["id"];
    nlohmann::json doc = nlohmann::json::parse(wb::test::readFile(e["file"].get<std::string>()));
    const bool compresses = doc.contains("compress");
    std::string command = (compresses ? "compress --example " : "train --example ") + id + tiny;
    if (compresses) {
      const size_t passes = doc["compress"]["passes"].size();
      for (size_t i = 0; i < passes; ++i) {
        const std::string pass = "compress.passes[" + std::to_string(i) + "]";
        const std::string type = doc["compress"]["passes"][i]["type"];
        if (type == "quantize") {
          command += " --set " + pass + ".calibration_batches=1";
        } else {
          command += " --set " + pass + ".max_steps=2";
        }
      }
      command += " --set compress.latency_runs=1";
    }
    const auto r = runCli(command);
    ASSERT_EQ(r.status, 0) << id << ": " << r.err;
    const nlohmann::json out = nlohmann::json::parse(r.out);
    if (compresses) {
      EXPECT_EQ(out["artifacts"].size(), doc["compress"]["passes"].size() + 1)
          << out.dump();  // + the original
    } else {
      EXPECT_EQ(out["status"], "completed") << id;
      EXPECT_EQ(out["steps"], 2) << id;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
