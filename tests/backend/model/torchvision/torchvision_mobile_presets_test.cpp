// The mobilenet_v3_large, efficientnet_b0 and convnext_tiny presets without torchvision
// (tests/backend/architectures compares them with torchvision itself): reachable as model.preset, the sizes
// they take, the head sized for the data, the names their lists carry, their cost in the summary.

#include <gtest/gtest.h>

#include "model/model.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"
#include "workbench/experiment_words.h"

namespace wb {
namespace {

std::unique_ptr<Model> mobilePreset(const std::string& preset, const std::vector<int64_t>& input,
                                    int64_t classes) {
  ModelConfig config;
  config.preset = preset;
  return buildModel(config, input, classes);
}

// The outside name of each parameter, and its shape.
std::map<std::string, std::vector<int64_t>> outsideShapes(Model& model) {
  const auto names = model.externalNames();
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& [key, tensor] : model.namedParameters()) {
    const auto it = names.find(key);
    shapes[it == names.end() ? key : it->second] = tensor.sizes().vec();
  }
  return shapes;
}

TEST(TorchvisionMobilePresets, AreModelPresetsWithTheHeadSizedForTheClasses) {
  const std::vector<std::string> words = allWords<ModelPreset>();
  const std::map<std::string, std::pair<std::string, int64_t>> heads = {
      {"mobilenet_v3_large", {"classifier.3.weight", 1280}},
      {"efficientnet_b0", {"classifier.1.weight", 1280}},
      {"convnext_tiny", {"classifier.2.weight", 768}}};
  for (const auto& [preset, head] : heads) {
    SCOPED_TRACE(preset);
    EXPECT_NE(std::find(words.begin(), words.end(), preset), words.end());
    const auto model = mobilePreset(preset, {3, 64, 64}, 7);
    EXPECT_EQ(model->info().output_shape, std::vector<int64_t>{7});
    EXPECT_EQ(outsideShapes(*model).at(head.first), (std::vector<int64_t>{7, head.second}));
    // The summary costs them: FLOPs of the depthwise convs counted per group, not per input channel.
    EXPECT_GT(model->info().flops_per_sample, 0);
    EXPECT_TRUE(test::contains(model->info().summary, "squeeze_excitation") || preset == "convnext_tiny");
  }
  try {
    presetLayers("efficientnet_b1", {3, 64, 64}, 10);
    FAIL() << "efficientnet_b1 was accepted";
  } catch (const UserError& error) {
    EXPECT_TRUE(test::contains(error.what(), "Did you mean \"efficientnet_b0\"?")) << error.what();
  }
}

TEST(TorchvisionMobilePresets, FitSmallAndLargeImagesAndConvNextSaysWhatItNeeds) {
  for (const char* preset : {"mobilenet_v3_large", "efficientnet_b0", "convnext_tiny"}) {
    for (int64_t size : {32, 64, 224}) {
      EXPECT_TRUE(checkLayers(presetLayers(preset, {3, size, size}, 10), {3, size, size}, 10).empty())
          << preset << " at " << size;
    }
  }
  // Grey 28x28 images: the mobile nets take them (their first conv reads one channel) ...
  const auto grey = mobilePreset("mobilenet_v3_large", {1, 28, 28}, 10);
  EXPECT_EQ(outsideShapes(*grey).at("features.0.0.weight"), (std::vector<int64_t>{16, 1, 3, 3}));
  EXPECT_NO_THROW(mobilePreset("efficientnet_b0", {1, 28, 28}, 10));
  // ... ConvNeXt's four reductions cannot.
  try {
    presetLayers("convnext_tiny", {1, 28, 28}, 10);
    FAIL() << "convnext_tiny was built for 28x28";
  } catch (const UserError& error) {
    EXPECT_TRUE(test::contains(error.what(), "convnext_tiny needs images of at least 32x32")) << error.what();
    EXPECT_TRUE(test::contains(error.what(), "[1, 28, 28]")) << error.what();
  }
}

TEST(TorchvisionMobilePresets, ListsCarryTorchvisionsNamesAndSettings) {
  const nlohmann::json mobilenet = presetLayers("mobilenet_v3_large", {3, 64, 64}, 10);
  EXPECT_EQ(mobilenet[0]["name"], "features.0.0");
  EXPECT_EQ(mobilenet[1]["eps"], 0.001);
  EXPECT_EQ(mobilenet[1]["momentum"], 0.01);
  EXPECT_EQ(mobilenet[3]["name"], "features.1");  // the first block adds its input: a residual
  EXPECT_EQ(mobilenet[3]["layers"][0]["groups"], 16);
  EXPECT_EQ(mobilenet[4]["name"], "features.2.block.0.0");  // the second does not: its layers
  const nlohmann::json efficientnet = presetLayers("efficientnet_b0", {3, 64, 64}, 10);
  EXPECT_EQ(efficientnet[1]["eps"], 1e-5);  // b0 keeps nn.BatchNorm2d's defaults
  // features.2.1 is the third block of sixteen: stochastic depth 0.2 * 2 / 16 before its sum
  const auto block = std::find_if(efficientnet.begin(), efficientnet.end(), [](const nlohmann::json& l) {
    return l.value("name", "") == "features.2.1";
  });
  ASSERT_NE(block, efficientnet.end());
  EXPECT_EQ((*block)["layers"].back()["type"], "stochastic_depth");
  EXPECT_DOUBLE_EQ((*block)["layers"].back()["p"].get<double>(), 0.025);
  const nlohmann::json convnext = presetLayers("convnext_tiny", {3, 64, 64}, 10);
  EXPECT_EQ(convnext[2]["name"], "features.1.0");
  EXPECT_EQ(convnext[2]["layers"][5]["type"], "layer_scale");
  EXPECT_EQ(convnext[2]["layers"][5]["name"], "");  // on the block itself: features.1.0.layer_scale
}

}  // namespace
}  // namespace wb
