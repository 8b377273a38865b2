// train.pipeline's cut against real layer lists: torchvision's resnet18 (named layers, unnamed relus
// between) and an unnamed list by index; every bad cut refused with a message naming the stage and layers;
// the balanced cut; the experiment's checks of the combinations a pipeline refuses.

#include "pipeline/pipeline_stages.h"

#include <gtest/gtest.h>

#include "experiment/experiment_consistency.h"
#include "model/layer_list.h"
#include "model/model.h"
#include "pipeline/pipeline_schedule.h"
#include "pipeline/pipeline_step.h"
#include "workbench/errors.h"

namespace wb {
namespace {

std::vector<LayerPtr> resnet18Layers() {
  std::vector<ValidationIssue> issues;
  std::vector<LayerPtr> layers =
      parseLayerList(presetLayers("resnet18", {3, 32, 32}, 10), "model.layers", issues);
  EXPECT_TRUE(issues.empty());
  return layers;
}

PipelineConfig explicitCut(std::vector<std::pair<std::string, std::string>> stages) {
  PipelineConfig config;
  config.enabled = true;
  for (auto& [device, layers] : stages) config.stages.push_back({device, layers});
  return config;
}

// The message of the UserError resolving `config` over resnet18 throws ("" when it does not).
std::string refusal(const PipelineConfig& config) {
  try {
    resolvePipelineStages(config, resnet18Layers(), {3, 32, 32});
  } catch (const UserError& error) {
    return error.what();
  }
  return "";
}

TEST(PipelineStages, ResnetNamesCutAtTorchvisionModules) {
  const std::vector<LayerPtr> layers = resnet18Layers();
  // conv1 bn1 relu maxpool | layer1.0 relu layer1.1 relu | layer2.0 relu layer2.1 relu | layer3.0 ...
  const auto stages = resolvePipelineStages(explicitCut({{"cpu", "conv1..layer2"}, {"cpu", "layer3..fc"}}),
                                            layers, {3, 32, 32});
  ASSERT_EQ(stages.size(), 2u);
  EXPECT_EQ(stages[0].begin, 0u);
  // The relu after layer2.1 (unnamed, torchvision's relu inside the block) stays with layer2.
  EXPECT_EQ(stages[0].end, 12u);
  EXPECT_EQ(*layers[12]->naming().name, "layer3.0");
  EXPECT_EQ(stages[1].begin, 12u);
  EXPECT_EQ(stages[1].end, layers.size());
  // One name, a block, and indices.
  const auto three = resolvePipelineStages(
      explicitCut({{"cpu", "0..3"}, {"cpu", "layer1.0..layer4"}, {"cpu", "avgpool..fc"}}), layers,
      {3, 32, 32});
  EXPECT_EQ(three[0].end, 4u);
  EXPECT_EQ(three[1].begin, 4u);
  EXPECT_EQ(three[2].begin, three[1].end);
}

TEST(PipelineStages, UnknownNameSuggestsTheClosest) {
  const std::string message = refusal(explicitCut({{"cpu", "conv1..layr2"}, {"cpu", "layer3..fc"}}));
  EXPECT_NE(message.find("train.pipeline.stages[0][1]: no top-level layer is named \"layr2\""),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("did you mean \"layer2\"?"), std::string::npos) << message;
}

TEST(PipelineStages, OverlapGapOrderAndBackwardsAreEachNamed) {
  std::string message = refusal(explicitCut({{"cpu", "conv1..layer2"}, {"cpu", "layer2.1..fc"}}));
  EXPECT_NE(message.find("stages[1][1]: layer2.1 (model.layers[10]) to relu (model.layers[11]) is already in "
                         "stages[0]"),
            std::string::npos)
      << message;
  message = refusal(explicitCut({{"cpu", "conv1..layer2"}, {"cpu", "layer4..fc"}}));
  EXPECT_NE(message.find("layer3.0 (model.layers[12]) to relu (model.layers[15]) is in no stage"),
            std::string::npos)
      << message;
  message = refusal(explicitCut({{"cpu", "conv1..layer3"}}));
  EXPECT_NE(message.find("the last stage must end at the model's last layer, fc"), std::string::npos)
      << message;
  message = refusal(explicitCut({{"cpu", "layer3..fc"}, {"cpu", "conv1..layer2"}}));
  EXPECT_NE(message.find("stages[1][1]: stages must follow the layers' order"), std::string::npos) << message;
  message = refusal(explicitCut({{"cpu", "layer2..conv1"}, {"cpu", "layer3..fc"}}));
  EXPECT_NE(message.find("\"layer2..conv1\" runs backwards"), std::string::npos) << message;
  message = refusal(explicitCut({{"cpu", "0..11"}, {"cpu", "12..99"}}));
  EXPECT_NE(message.find("layer index 99 is past the model's last top-level layer, fc (model.layers[22])"),
            std::string::npos)
      << message;
  // Two problems at once, both said.
  message = refusal(explicitCut({{"cpu", "conv9..layer2"}, {"cpu", "layer3..fx"}}));
  EXPECT_NE(message.find("\"conv9\""), std::string::npos) << message;
  EXPECT_NE(message.find("\"fx\""), std::string::npos) << message;
}

TEST(PipelineStages, UnnamedListsAreCutByIndex) {
  std::vector<ValidationIssue> issues;
  const auto layers = parseLayerList(presetLayers("cnn", {1, 28, 28}, 10), "model.layers", issues);
  const auto stages =
      resolvePipelineStages(explicitCut({{"cpu", "0..5"}, {"cpu", "6..10"}}), layers, {1, 28, 28});
  EXPECT_EQ(stages[1].begin, 6u);
  std::string message;
  try {
    resolvePipelineStages(explicitCut({{"cpu", "conv1..5"}, {"cpu", "6..10"}}), layers, {1, 28, 28});
  } catch (const UserError& error) {
    message = error.what();
  }
  EXPECT_NE(message.find("this model's layers have no names: give indices"), std::string::npos) << message;
}

// "balanced" is proposePipelineCut's cut (tested on its own in tests/backend/model), as contiguous stages.
TEST(PipelineStages, BalancedTakesTheProposedCut) {
  PipelineConfig config;
  config.enabled = true;
  config.balanced = true;
  config.devices = {"cpu", "cpu", "cpu"};
  const std::vector<LayerPtr> layers = resnet18Layers();
  const auto stages = resolvePipelineStages(config, layers, {3, 32, 32});
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[0].begin, 0u);
  EXPECT_EQ(stages[1].begin, stages[0].end);
  EXPECT_EQ(stages[2].begin, stages[1].end);
  EXPECT_EQ(stages[2].end, layers.size());
  // Balanced by FLOPs: the stem and layer1 (the most FLOPs a pixel) get fewer layers than the tail.
  EXPECT_LT(stages[0].end - stages[0].begin, stages[2].end - stages[2].begin);
  config.devices = std::vector<std::string>(30, "cpu");
  try {
    resolvePipelineStages(config, layers, {3, 32, 32});
    ADD_FAILURE() << "30 stages of 23 layers";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("train.pipeline: no balanced cut: "), std::string::npos)
        << error.what();
  }
}

TEST(PipelineSchedule, OneFOneBWarmsUpThenAlternates) {
  const auto text = [](const std::vector<StageOp>& ops) {
    std::string out;
    for (const StageOp& op : ops) out += (op.forward ? "F" : "B") + std::to_string(op.micro) + " ";
    return out;
  };
  EXPECT_EQ(text(stageOps(PipelineSchedule::OneFOneB, 0, 3, 4)), "F0 F1 F2 B0 F3 B1 B2 B3 ");
  EXPECT_EQ(text(stageOps(PipelineSchedule::OneFOneB, 2, 3, 4)), "F0 B0 F1 B1 F2 B2 F3 B3 ");
  EXPECT_EQ(text(stageOps(PipelineSchedule::GPipe, 1, 3, 2)), "F0 F1 B0 B1 ");
  EXPECT_NEAR(idealBubble(2, 8), 1.0 / 9.0, 1e-12);
}

TEST(PipelineStep, UnevenBatchesSplitAsEvenlyAsTheyGo) {
  EXPECT_EQ(microBatchSizes(10, 4), (std::vector<int64_t>{3, 3, 2, 2}));
  EXPECT_EQ(microBatchSizes(32, 8), std::vector<int64_t>(8, 4));
  EXPECT_EQ(microBatchSizes(3, 8), (std::vector<int64_t>{1, 1, 1}));
}

TEST(PipelineChecks, RefusedCombinationsSayWhatToDo) {
  Experiment e;
  e.train.pipeline = explicitCut({{"cuda:0", "0..2"}, {"cuda:1", "3..5"}});
  e.train.devices = {"cpu"};
  e.train.batch_size = 4;
  e.train.pipeline.micro_batches = 8;
  e.train.amp = Precision::Fp16;
  e.train.clip_grad_norm = 1.0;  // measured across the stages' devices: allowed
  e.model.torchscript = "net.pt";
  IssueList issues;
  checkConsistency(e, issues);
  std::string all;
  for (const ValidationIssue& issue : issues.issues()) all += issue.path + ": " + issue.message + "\n";
  EXPECT_NE(all.find("train.devices: batches are loaded onto train.devices"), std::string::npos) << all;
  EXPECT_NE(
      all.find("train.pipeline.micro_batches: train.pipeline.micro_batches is 8 but a batch has only 4"),
      std::string::npos)
      << all;
  EXPECT_NE(all.find("train.amp: fp16 with train.pipeline"), std::string::npos) << all;
  EXPECT_EQ(all.find("train.clip_grad_norm"), std::string::npos) << all;
  EXPECT_NE(all.find("TorchScript module (model.torchscript net.pt)"), std::string::npos) << all;
  e.train.pipeline = PipelineConfig{};
  e.train.pipeline.enabled = true;
  IssueList empty;
  checkConsistency(e, empty);
  ASSERT_FALSE(empty.issues().empty());
  EXPECT_EQ(empty.issues()[0].path, "train.pipeline.stages");
}

TEST(PipelineChecks, TheFileReadsStagesAndBalanced) {
  // (json::array: nlohmann reads a list of string pairs written in braces as an object)
  const nlohmann::json stages = nlohmann::json::array({{"cpu", "0..1"}, {"cpu", "2..3"}});
  nlohmann::json doc = {
      {"train", {{"pipeline", {{"stages", stages}, {"micro_batches", 4}, {"schedule", "gpipe"}}}}}};
  ParseResult parsed = parseExperiment(doc);
  ASSERT_TRUE(parsed.ok()) << parsed.issues[0].path << ": " << parsed.issues[0].message;
  EXPECT_TRUE(parsed.experiment.train.pipeline.enabled);
  EXPECT_EQ(parsed.experiment.train.pipeline.stages[1].layers, "2..3");
  EXPECT_EQ(parsed.experiment.train.pipeline.schedule, PipelineSchedule::GPipe);
  EXPECT_EQ(experimentToJson(parsed.experiment)["train"]["pipeline"]["stages"],
            doc["train"]["pipeline"]["stages"]);
  doc["train"]["pipeline"] = {{"stages", "balanced"}, {"devices", {"cpu", "gpu"}}};
  parsed = parseExperiment(doc);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.issues[0].path, "train.pipeline.devices[1]");
  doc["train"]["pipeline"] = {{"stages", nlohmann::json::array({nlohmann::json::array({"cpu"})})}};
  parsed = parseExperiment(doc);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.issues[0].path, "train.pipeline.stages[0]");
}

}  // namespace
}  // namespace wb
