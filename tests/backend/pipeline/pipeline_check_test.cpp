// checkExperiment resolves train.pipeline's cut against the model's layers as the run does, so `check` and
// the window's form refuse a bad cut (an unknown layer, a layer in two stages or in none) before a run folder
// exists, each at its stage's path.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {
namespace {

// flatten, fc1, an unnamed relu, head: on 1x8x8 synthetic samples in 4 classes.
Experiment namedLayersPipeline(const nlohmann::json& stages,
                               const nlohmann::json& devices = nlohmann::json::array()) {
  nlohmann::json doc = {
      {"data",
       {{"dataset", "synthetic"}, {"synthetic", {{"samples", 64}, {"classes", 4}, {"shape", {1, 8, 8}}}}}},
      {"model",
       {{"layers", nlohmann::json::parse(R"([{"type": "flatten"}, {"type": "linear", "out_features": 16,
           "name": "fc1"}, {"type": "relu"}, {"type": "linear", "out_features": 4, "name": "head"}])")}}},
      {"train",
       {{"batch_size", 8}, {"devices", {"cpu"}}, {"pipeline", {{"stages", stages}, {"devices", devices}}}}},
      {"output", {{"runs_dir", ::testing::TempDir() + "wb-pipeline-check"}}}};
  const ParseResult parsed = parseExperiment(doc);
  EXPECT_TRUE(parsed.ok()) << formatIssues(parsed.issues);
  return parsed.experiment;
}

std::string issueAt(const std::vector<ValidationIssue>& issues, const std::string& path) {
  for (const ValidationIssue& issue : issues) {
    if (issue.path == path) return issue.message;
  }
  return {};
}

TEST(PipelineCheck, AGoodCutAndBalancedPass) {
  const auto good = checkExperiment(namedLayersPipeline(nlohmann::json::parse(R"([["cpu", "0..fc1"],
                                                                                  ["cpu", "head"]])")));
  EXPECT_TRUE(good.empty()) << formatIssues(good);
  const Experiment balanced = namedLayersPipeline("balanced", {"cpu", "cpu"});
  EXPECT_TRUE(checkExperiment(balanced).empty()) << formatIssues(checkExperiment(balanced));
}

TEST(PipelineCheck, AnUnknownLayerIsRefusedAtItsStage) {
  const auto issues =
      checkExperiment(namedLayersPipeline(nlohmann::json::parse(R"([["cpu", "0..fc1"], ["cpu", "haed"]])")));
  const std::string message = issueAt(issues, "train.pipeline.stages[1][1]");
  EXPECT_NE(message.find("\"haed\""), std::string::npos) << formatIssues(issues);
  EXPECT_NE(message.find("did you mean \"head\""), std::string::npos) << message;
}

TEST(PipelineCheck, OverlapsAndGapsAreRefused) {
  // fc1 as the last end takes the unnamed relu after it: a stage starting at the relu overlaps.
  const auto overlap =
      checkExperiment(namedLayersPipeline(nlohmann::json::parse(R"([["cpu", "0..fc1"], ["cpu", "2..3"]])")));
  EXPECT_FALSE(overlap.empty());
  EXPECT_NE(issueAt(overlap, "train.pipeline.stages[1][1]"), "") << formatIssues(overlap);
  const auto gap =
      checkExperiment(namedLayersPipeline(nlohmann::json::parse(R"([["cpu", "0..1"], ["cpu", "head"]])")));
  EXPECT_FALSE(gap.empty()) << "layer 2 (the relu) is in no stage";
  for (const ValidationIssue& issue : gap) EXPECT_EQ(issue.path.rfind("train.pipeline", 0), 0u) << issue.path;
}

}  // namespace
}  // namespace wb
