// checkLayers: what a user sees for a layer list that does not fit, by JSON path.

#include <gtest/gtest.h>

#include "model/model.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

// The one issue a list produces (the test fails when there are more or none).
ValidationIssue onlyIssue(const json& layers, const std::vector<int64_t>& input = test::kFashionImage,
                          int64_t classes = 10) {
  const std::vector<ValidationIssue> issues = checkLayers(layers, input, classes);
  EXPECT_EQ(issues.size(), 1u) << layers.dump();
  for (const ValidationIssue& issue : issues)
    std::cerr << "  " << issue.path << ": " << issue.message << "\n";
  return issues.empty() ? ValidationIssue{} : issues.front();
}

TEST(CheckLayers, AcceptsAListThatFits) {
  const json layers = json::parse(R"([
    {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1},
    {"type": "relu"}, {"type": "maxpool2d", "kernel_size": 2},
    {"type": "flatten"}, {"type": "linear", "out_features": 10}])");
  EXPECT_TRUE(checkLayers(layers, test::kFashionImage, 10).empty());
}

TEST(CheckLayers, UnknownTypeSuggestsTheClosestType) {
  const ValidationIssue issue =
      onlyIssue(json::parse(R"([{"type": "conv2", "out_channels": 8, "kernel_size": 3}])"));
  EXPECT_EQ(issue.path, "model.layers[0].type");
  EXPECT_TRUE(test::contains(issue.message, "unknown layer type \"conv2\"")) << issue.message;
  EXPECT_TRUE(test::contains(issue.message, "Did you mean \"conv2d\"?")) << issue.message;
}

TEST(CheckLayers, MissingTypeListsTheTypes) {
  const ValidationIssue issue = onlyIssue(json::parse(R"([{"out_features": 10}])"));
  EXPECT_EQ(issue.path, "model.layers[0].type");
  EXPECT_TRUE(test::contains(issue.message, "missing \"type\"")) << issue.message;
  EXPECT_TRUE(test::contains(issue.message, "encoder_block")) << issue.message;
}

TEST(CheckLayers, MissingRequiredParameterIsNamed) {
  const ValidationIssue issue = onlyIssue(json::parse(R"([{"type": "flatten"}, {"type": "linear"}])"));
  EXPECT_EQ(issue.path, "model.layers[1].out_features");
  EXPECT_TRUE(test::contains(issue.message, "linear needs out_features")) << issue.message;
}

TEST(CheckLayers, UnknownParameterSuggestsTheClosestKey) {
  const ValidationIssue issue = onlyIssue(json::parse(
      R"([{"type": "conv2d", "out_channels": 8, "kernel_size": 3, "paddding": 1}, {"type": "flatten"},
          {"type": "linear", "out_features": 10}])"));
  EXPECT_EQ(issue.path, "model.layers[0].paddding");
  EXPECT_TRUE(test::contains(issue.message, "conv2d has no parameter \"paddding\"")) << issue.message;
  EXPECT_TRUE(test::contains(issue.message, "Did you mean \"padding\"?")) << issue.message;
}

TEST(CheckLayers, ParameterlessLayerRejectsAnyKey) {
  const ValidationIssue issue = onlyIssue(json::parse(
      R"([{"type": "flatten"}, {"type": "relu", "inplace": true}, {"type": "linear", "out_features": 10}])"));
  EXPECT_EQ(issue.path, "model.layers[1].inplace");
  EXPECT_TRUE(test::contains(issue.message, "relu takes no parameters")) << issue.message;
}

TEST(CheckLayers, ReportsEveryParameterErrorAtOnce) {
  const std::vector<ValidationIssue> issues =
      checkLayers(json::parse(R"([{"type": "conv2d", "out_channels": 0, "kernel_size": "3x3"},
                      {"type": "maxpool2d", "kernel_size": 2, "padding": 2},
                      {"type": "dropout", "p": 1.5}, {"type": "flatten"},
                      {"type": "linear", "out_features": 10}])"),
                  test::kFashionImage, 10);
  std::vector<std::string> paths;
  for (const ValidationIssue& issue : issues) paths.push_back(issue.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"model.layers[0].out_channels", "model.layers[0].kernel_size",
                                             "model.layers[1].padding", "model.layers[2].p"}));
  EXPECT_TRUE(test::contains(issues[0].message, "got 0")) << issues[0].message;
  EXPECT_TRUE(test::contains(issues[1].message, "got \"3x3\"")) << issues[1].message;
  EXPECT_TRUE(test::contains(issues[2].message, "at most half of kernel_size")) << issues[2].message;
}

TEST(CheckLayers, LinearAfterConvAsksForFlatten) {
  const ValidationIssue issue = onlyIssue(json::parse(
      R"([{"type": "conv2d", "out_channels": 64, "kernel_size": 3, "padding": 1},
          {"type": "maxpool2d", "kernel_size": 4}, {"type": "linear", "out_features": 10}])"));
  EXPECT_EQ(issue.path, "model.layers[2]");
  EXPECT_EQ(issue.message,
            "linear expects a flat input [features], got [64, 7, 7]: add a flatten layer before it");
}

TEST(CheckLayers, ImageLayerOnFeaturesSaysSo) {
  const ValidationIssue issue =
      onlyIssue(json::parse(R"([{"type": "conv2d", "out_channels": 4, "kernel_size": 3}])"), {20}, 3);
  EXPECT_EQ(issue.path, "model.layers[0]");
  EXPECT_TRUE(
      test::contains(issue.message, "conv2d expects an image input [channels, height, width], got [20]"))
      << issue.message;
}

TEST(CheckLayers, KernelLargerThanTheImageIsCaught) {
  const ValidationIssue issue = onlyIssue(json::parse(
      R"([{"type": "maxpool2d", "kernel_size": 8}, {"type": "conv2d", "out_channels": 4, "kernel_size": 5},
          {"type": "flatten"}, {"type": "linear", "out_features": 10}])"));
  EXPECT_EQ(issue.path, "model.layers[1]");
  EXPECT_TRUE(test::contains(issue.message, "kernel of 5 along the height, larger than the input's 3"))
      << issue.message;
}

TEST(CheckLayers, ResidualBranchMismatchNamesTheResidualAndBothShapes) {
  const ValidationIssue issue = onlyIssue(json::parse(
      R"([{"type": "conv2d", "out_channels": 32, "kernel_size": 3, "padding": 1},
          {"type": "residual", "layers": [
             {"type": "conv2d", "out_channels": 64, "kernel_size": 3, "stride": 2, "padding": 1}]},
          {"type": "flatten"}, {"type": "linear", "out_features": 10}])"));
  EXPECT_EQ(issue.path, "model.layers[1]");
  EXPECT_TRUE(test::contains(issue.message, "residual adds two branches")) << issue.message;
  EXPECT_TRUE(test::contains(issue.message, "[64, 14, 14]")) << issue.message;
  EXPECT_TRUE(test::contains(issue.message, "[32, 28, 28]")) << issue.message;
  // the fix it proposes is itself valid
  const json fixed = json::parse(
      R"([{"type": "conv2d", "out_channels": 32, "kernel_size": 3, "padding": 1},
          {"type": "residual", "layers": [
             {"type": "conv2d", "out_channels": 64, "kernel_size": 3, "stride": 2, "padding": 1}],
           "shortcut": [{"type": "conv2d", "out_channels": 64, "kernel_size": 1, "stride": 2, "bias": false},
                        {"type": "batchnorm2d"}]},
          {"type": "flatten"}, {"type": "linear", "out_features": 10}])");
  EXPECT_TRUE(test::contains(issue.message, "\"out_channels\": 64, \"kernel_size\": 1, \"stride\": 2"))
      << issue.message;
  EXPECT_TRUE(checkLayers(fixed, test::kFashionImage, 10).empty());
}

TEST(CheckLayers, ErrorsInsideAResidualCarryTheNestedPath) {
  const ValidationIssue shapeIssue = onlyIssue(json::parse(
      R"([{"type": "residual", "layers": [{"type": "flatten"}, {"type": "conv2d", "out_channels": 4,
                                                                 "kernel_size": 1}]}])"));
  EXPECT_EQ(shapeIssue.path, "model.layers[0].layers[1]");
  EXPECT_TRUE(test::contains(shapeIssue.message, "conv2d expects an image input")) << shapeIssue.message;

  const ValidationIssue paramIssue = onlyIssue(json::parse(
      R"([{"type": "residual", "layers": [{"type": "relu"}],
           "shortcut": [{"type": "conv2d", "kernel_size": 1}]},
          {"type": "flatten"}, {"type": "linear", "out_features": 10}])"));
  EXPECT_EQ(paramIssue.path, "model.layers[0].shortcut[0].out_channels");

  const ValidationIssue emptyIssue = onlyIssue(json::parse(
      R"([{"type": "residual", "layers": []}, {"type": "flatten"},
          {"type": "linear", "out_features": 10}])"));
  EXPECT_EQ(emptyIssue.path, "model.layers[0].layers");
}

TEST(CheckLayers, WrongNumberOfOutputsNamesTheClassCount) {
  const ValidationIssue issue =
      onlyIssue(json::parse(R"([{"type": "flatten"}, {"type": "linear", "out_features": 5}])"));
  EXPECT_EQ(issue.path, "model.layers");
  EXPECT_TRUE(test::contains(issue.message, "the model outputs [5] but the data has 10 classes"))
      << issue.message;
  EXPECT_TRUE(test::contains(issue.message, "\"out_features\": 10")) << issue.message;

  const ValidationIssue imageOut = onlyIssue(json::parse(R"([{"type": "relu"}])"));
  EXPECT_TRUE(test::contains(imageOut.message, "outputs [1, 28, 28]")) << imageOut.message;
  EXPECT_TRUE(test::contains(imageOut.message, "flatten")) << imageOut.message;
}

TEST(CheckLayers, PatchSizeMustDivideTheImage) {
  const ValidationIssue issue = onlyIssue(json::parse(
      R"([{"type": "patch_embed", "patch_size": 5, "dim": 16}, {"type": "token_pool"},
          {"type": "linear", "out_features": 10}])"));
  EXPECT_EQ(issue.path, "model.layers[0]");
  EXPECT_TRUE(test::contains(issue.message, "patch_size 5, which does not divide the 28x28 image"))
      << issue.message;
  EXPECT_TRUE(test::contains(issue.message, "(2, 4, 7, 14, 28)")) << issue.message;
}

TEST(CheckLayers, AttentionHeadsMustDivideTheTokenDim) {
  const ValidationIssue issue = onlyIssue(json::parse(
      R"([{"type": "patch_embed", "patch_size": 7, "dim": 30}, {"type": "encoder_block", "heads": 4},
          {"type": "token_pool"}, {"type": "linear", "out_features": 10}])"));
  EXPECT_EQ(issue.path, "model.layers[1]");
  EXPECT_TRUE(test::contains(issue.message, "4 heads, which do not divide the token dim 30"))
      << issue.message;
}

TEST(CheckLayers, TokenLayersNeedTokens) {
  const ValidationIssue issue = onlyIssue(json::parse(
      R"([{"type": "position_embedding"}, {"type": "token_pool"}, {"type": "linear", "out_features": 10}])"));
  EXPECT_EQ(issue.path, "model.layers[0]");
  EXPECT_TRUE(test::contains(issue.message, "add a patch_embed layer before it")) << issue.message;
}

TEST(CheckLayers, ListShapeProblems) {
  EXPECT_EQ(onlyIssue(json::array()).path, "model.layers");
  EXPECT_TRUE(test::contains(onlyIssue(json::array()).message, "empty"));
  EXPECT_TRUE(test::contains(onlyIssue(json::object()).message, "must be a list of layers"));
  EXPECT_EQ(onlyIssue(json::parse(R"([{"type": "flatten"}, 5])")).path, "model.layers[1]");
}

TEST(CheckLayers, BuildModelThrowsTheIssuesAsAUserError) {
  ModelConfig config;
  config.preset.clear();
  config.layers = json::parse(R"([{"type": "flatten"}, {"type": "linear", "out_features": 5}])");
  try {
    buildModel(config, test::kFashionImage, 10);
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_TRUE(
        test::contains(error.what(), "model.layers: the model outputs [5] but the data has 10 classes"))
        << error.what();
  }
}

TEST(CheckLayers, EveryTypeIsListed) {
  const std::vector<std::string> types = layerTypes();
  for (const char* type : {"conv2d",
                           "batchnorm2d",
                           "batchnorm1d",
                           "relu",
                           "gelu",
                           "tanh",
                           "sigmoid",
                           "maxpool2d",
                           "avgpool2d",
                           "adaptive_avgpool2d",
                           "flatten",
                           "linear",
                           "dropout",
                           "layernorm",
                           "residual",
                           "patch_embed",
                           "position_embedding",
                           "encoder_block",
                           "token_pool",
                           "identity",
                           "hardswish",
                           "hardsigmoid",
                           "silu",
                           "squeeze_excitation",
                           "stochastic_depth",
                           "layernorm2d",
                           "channel_linear",
                           "layer_scale"}) {
    EXPECT_NE(std::find(types.begin(), types.end(), type), types.end()) << type;
  }
  EXPECT_EQ(types.size(), 28u);
}

}  // namespace
}  // namespace wb
