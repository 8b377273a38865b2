// Outside names (model/layer_names.h): "name" and "param_names" on layers give Model::externalNames, without
// touching the state-dict keys the passes and checkpoints use.

#include "model/layer_names.h"

#include <gtest/gtest.h>

#include "model/layer_list.h"
#include "model/model.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

std::unique_ptr<Model> namesModel(const json& layers, const std::vector<int64_t>& input, int64_t classes) {
  ModelConfig config;
  config.layers = layers;
  return buildModel(config, input, classes);
}

// A torchvision-style basic block on a 3x8x8 image: the block carries the stage in its name, its body's
// modules sit on it, the shortcut is "downsample".
json namedBlockList() {
  return json::parse(R"([
    {"type": "conv2d", "name": "conv1", "out_channels": 4, "kernel_size": 3, "padding": 1, "bias": false},
    {"type": "batchnorm2d", "name": "bn1"},
    {"type": "relu"},
    {"type": "residual", "name": "layer1.0",
     "layers": [{"type": "conv2d", "name": "conv1", "out_channels": 8, "kernel_size": 3, "stride": 2,
                 "padding": 1, "bias": false},
                {"type": "batchnorm2d", "name": "bn1"}],
     "shortcut": [{"type": "conv2d", "name": "downsample.0", "out_channels": 8, "kernel_size": 1, "stride": 2,
                   "bias": false},
                  {"type": "batchnorm2d", "name": "downsample.1"}]},
    {"type": "relu"},
    {"type": "adaptive_avgpool2d", "output_size": 1},
    {"type": "flatten"},
    {"type": "linear", "name": "fc", "out_features": 3}])");
}

TEST(LayerNames, ListWithoutNamesMapsNothing) {
  const auto model = namesModel(
      json::parse(R"([{"type": "flatten"}, {"type": "linear", "out_features": 3}])"), {1, 2, 2}, 3);
  EXPECT_TRUE(model->externalNames().empty());
}

TEST(LayerNames, NamesMapEveryParameterAndBufferKeepingTheKeys) {
  const auto model = namesModel(namedBlockList(), {3, 8, 8}, 3);
  const std::map<std::string, std::string> names = model->externalNames();
  const std::map<std::string, std::string> expected = {
      {"layers.0.weight", "conv1.weight"},
      {"layers.1.weight", "bn1.weight"},
      {"layers.1.bias", "bn1.bias"},
      {"layers.1.running_mean", "bn1.running_mean"},
      {"layers.1.running_var", "bn1.running_var"},
      {"layers.1.num_batches_tracked", "bn1.num_batches_tracked"},
      {"layers.3.layers.0.weight", "layer1.0.conv1.weight"},
      {"layers.3.layers.1.weight", "layer1.0.bn1.weight"},
      {"layers.3.layers.1.bias", "layer1.0.bn1.bias"},
      {"layers.3.layers.1.running_mean", "layer1.0.bn1.running_mean"},
      {"layers.3.layers.1.running_var", "layer1.0.bn1.running_var"},
      {"layers.3.layers.1.num_batches_tracked", "layer1.0.bn1.num_batches_tracked"},
      {"layers.3.shortcut.0.weight", "layer1.0.downsample.0.weight"},
      {"layers.3.shortcut.1.weight", "layer1.0.downsample.1.weight"},
      {"layers.3.shortcut.1.bias", "layer1.0.downsample.1.bias"},
      {"layers.3.shortcut.1.running_mean", "layer1.0.downsample.1.running_mean"},
      {"layers.3.shortcut.1.running_var", "layer1.0.downsample.1.running_var"},
      {"layers.3.shortcut.1.num_batches_tracked", "layer1.0.downsample.1.num_batches_tracked"},
      {"layers.7.weight", "fc.weight"},
      {"layers.7.bias", "fc.bias"}};
  EXPECT_EQ(names, expected);
  // The module's own keys are what they always were.
  std::vector<std::string> keys;
  for (const auto& [key, tensor] : model->namedParameters()) keys.push_back(key);
  EXPECT_EQ(keys.front(), "layers.0.weight");
  EXPECT_EQ(keys.back(), "layers.7.bias");
}

TEST(LayerNames, UnnamedLayersKeepTheirKeysBesideNamedOnes) {
  json layers = namedBlockList();
  layers[0].erase("name");
  layers[3]["layers"][1].erase("name");
  const auto names = namesModel(layers, {3, 8, 8}, 3)->externalNames();
  EXPECT_EQ(names.count("layers.0.weight"), 0u);  // the same name outside: no entry
  EXPECT_EQ(names.count("layers.3.layers.1.weight"), 0u);
  EXPECT_EQ(names.at("layers.3.layers.0.weight"), "layer1.0.conv1.weight");
}

TEST(LayerNames, ParamNamesRenameByLongestPrefixAndEmptyNameSitsOnTheHolder) {
  // ViT's tensors as torchvision names them: the class token on the model, the position embedding in the
  // encoder, the patch conv's weight directly on conv_proj.
  const json layers = json::parse(R"([
    {"type": "patch_embed", "name": "conv_proj", "patch_size": 4, "dim": 8, "param_names": {"proj": ""}},
    {"type": "position_embedding", "name": "",
     "param_names": {"cls_token": "class_token", "pos_embed": "encoder.pos_embedding"}},
    {"type": "encoder_block", "name": "encoder.layers.encoder_layer_0", "heads": 2,
     "param_names": {"norm1": "ln_1", "attn": "self_attention", "attn.out_proj.bias": "attn_out_bias",
                     "norm2": "ln_2", "fc1": "mlp.0", "fc2": "mlp.3"}},
    {"type": "token_pool"},
    {"type": "linear", "name": "heads.head", "out_features": 3}])");
  const auto names = namesModel(layers, {3, 8, 8}, 3)->externalNames();
  EXPECT_EQ(names.at("layers.0.proj.weight"), "conv_proj.weight");
  EXPECT_EQ(names.at("layers.1.cls_token"), "class_token");
  EXPECT_EQ(names.at("layers.1.pos_embed"), "encoder.pos_embedding");
  const std::string block = "encoder.layers.encoder_layer_0.";
  EXPECT_EQ(names.at("layers.2.norm1.weight"), block + "ln_1.weight");
  EXPECT_EQ(names.at("layers.2.attn.in_proj_weight"), block + "self_attention.in_proj_weight");
  EXPECT_EQ(names.at("layers.2.attn.out_proj.weight"), block + "self_attention.out_proj.weight");
  EXPECT_EQ(names.at("layers.2.attn.out_proj.bias"), block + "attn_out_bias");  // the longer key wins
  EXPECT_EQ(names.at("layers.2.fc2.bias"), block + "mlp.3.bias");
  EXPECT_EQ(names.at("layers.4.weight"), "heads.head.weight");
}

TEST(LayerNames, LayerListJsonKeepsTheNames) {
  std::vector<ValidationIssue> issues;
  const std::vector<LayerPtr> layers = parseLayerList(namedBlockList(), "model.layers", issues);
  ASSERT_TRUE(issues.empty());
  EXPECT_EQ(layersToJson(layers)[3]["name"], "layer1.0");
  EXPECT_EQ(layersToJson(layers)[3]["shortcut"][1]["name"], "downsample.1");
  std::vector<ValidationIssue> again;
  EXPECT_EQ(layersToJson(parseLayerList(layersToJson(layers), "model.layers", again)), layersToJson(layers));
  const json encoder = {{"type", "encoder_block"}, {"heads", 2}, {"param_names", {{"norm1", "ln_1"}}}};
  EXPECT_EQ(layersToJson(parseLayerList(json::array({encoder}), "l", again))[0]["param_names"]["norm1"],
            "ln_1");
}

TEST(LayerNames, BadNamesAreReportedByPath) {
  const json layers = json::parse(R"([
    {"type": "flatten", "name": "a..b"},
    {"type": "linear", "out_features": 3, "name": 7},
    {"type": "relu", "param_names": ["x"]},
    {"type": "relu", "param_names": {"weight": 3}}])");
  const std::vector<ValidationIssue> issues = checkLayers(layers, {1, 2, 2}, 3);
  ASSERT_EQ(issues.size(), 4u);
  EXPECT_EQ(issues[0].path, "model.layers[0].name");
  EXPECT_TRUE(test::contains(issues[0].message, "module path")) << issues[0].message;
  EXPECT_EQ(issues[1].path, "model.layers[1].name");
  EXPECT_EQ(issues[2].path, "model.layers[2].param_names");
  EXPECT_EQ(issues[3].path, "model.layers[3].param_names.weight");
  // A misspelled parameter still gets its suggestion, and the names are not offered as parameters.
  const std::vector<ValidationIssue> typo =
      checkLayers(json::parse(R"([{"type": "flatten"}, {"type": "relu", "nam": "x"}])"), {3}, 3);
  ASSERT_FALSE(typo.empty());
  EXPECT_TRUE(test::contains(typo[0].message, "takes no parameters")) << typo[0].message;
}

TEST(LayerNames, TwoTensorsWithOneOutsideNameAreRefused) {
  const json layers =
      json::parse(R"([{"type": "flatten"}, {"type": "linear", "out_features": 4, "name": "fc"},
    {"type": "linear", "out_features": 3, "name": "fc"}])");
  try {
    namesModel(layers, {1, 2, 2}, 3);
    FAIL() << "two layers named fc were accepted";
  } catch (const UserError& error) {
    EXPECT_TRUE(test::contains(error.what(), "layers.1.weight and layers.2.weight are both named fc.weight"))
        << error.what();
  }
}

TEST(LayerNames, TheRunLogsLayerTableShowsTheNames) {
  const std::string named = namesModel(namedBlockList(), {3, 8, 8}, 3)->info().summary;
  EXPECT_TRUE(test::contains(named, "  name\n")) << named;
  EXPECT_TRUE(test::contains(named, "  layer1.0.downsample.1\n")) << named;
  EXPECT_TRUE(test::contains(named, "  fc\n")) << named;
  const std::string plain =
      namesModel(json::parse(R"([{"type": "flatten"}, {"type": "linear", "out_features": 3}])"), {1, 2, 2}, 3)
          ->info()
          .summary;
  EXPECT_FALSE(test::contains(plain, "name")) << plain;
}

TEST(LayerNames, OutsideTensorNameMatchesWholeWordsOnly) {
  LayerNaming naming;
  naming.paramNames = {{"fc1", "mlp.0"}};
  EXPECT_EQ(outsideTensorName(naming, "fc1.weight"), "mlp.0.weight");
  EXPECT_EQ(outsideTensorName(naming, "fc10.weight"), "fc10.weight");  // "fc1" is not a prefix word of it
  EXPECT_EQ(outsideTensorName(naming, "fc1"), "mlp.0");
}

}  // namespace
}  // namespace wb
