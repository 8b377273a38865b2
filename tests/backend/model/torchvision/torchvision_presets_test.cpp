// The resnet18, resnet50 and vit_b_16 presets without torchvision (tests/backend/architectures compares them
// with torchvision itself): the sizes they take, the head sized for the data, the names their lists carry.

#include <gtest/gtest.h>

#include "model/model.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"
#include "workbench/experiment_words.h"

namespace wb {
namespace {

std::unique_ptr<Model> torchvisionPreset(const std::string& preset, const std::vector<int64_t>& input,
                                         int64_t classes) {
  ModelConfig config;
  config.preset = preset;
  return buildModel(config, input, classes);
}

TEST(TorchvisionPresets, AreWordsOfThePresetList) {
  const std::vector<std::string> words = allWords<ModelPreset>();
  for (const char* preset : {"mlp", "cnn", "resnet", "vit", "resnet18", "resnet50", "vit_b_16"}) {
    EXPECT_NE(std::find(words.begin(), words.end(), preset), words.end()) << preset;
  }
  try {
    presetLayers("resnet19", {3, 32, 32}, 10);
    FAIL() << "resnet19 was accepted";
  } catch (const UserError& error) {
    EXPECT_TRUE(test::contains(error.what(), "Did you mean \"resnet18\"?")) << error.what();
  }
}

TEST(TorchvisionPresets, ResnetsFitSmallAndLargeImagesWithTheHeadSizedForTheClasses) {
  for (const char* preset : {"resnet18", "resnet50"}) {
    for (int64_t size : {32, 64, 224}) {
      EXPECT_TRUE(checkLayers(presetLayers(preset, {3, size, size}, 7), {3, size, size}, 7).empty())
          << preset << " at " << size;
    }
  }
  const auto model = torchvisionPreset("resnet18", {3, 32, 32}, 7);
  EXPECT_EQ(model->info().output_shape, std::vector<int64_t>{7});
  const auto names = model->externalNames();
  for (const auto& [key, tensor] : model->namedParameters()) {
    if (names.at(key) == "fc.weight") {
      EXPECT_EQ(tensor.sizes(), (std::vector<int64_t>{7, 512}));
    }
  }
  // A grey image changes only the stem's input channels.
  const auto grey = torchvisionPreset("resnet18", {1, 32, 32}, 10);
  EXPECT_EQ(grey->namedParameters().front().second.sizes(), (std::vector<int64_t>{64, 1, 7, 7}));
}

TEST(TorchvisionPresets, VitB16TakesOnly224PixelImagesAndSaysSo) {
  EXPECT_TRUE(checkLayers(presetLayers("vit_b_16", {3, 224, 224}, 5), {3, 224, 224}, 5).empty());
  for (const std::vector<int64_t>& input :
       {std::vector<int64_t>{3, 32, 32}, std::vector<int64_t>{3, 256, 224}}) {
    try {
      presetLayers("vit_b_16", input, 10);
      FAIL() << "vit_b_16 was built for " << shapeToString(input);
    } catch (const UserError& error) {
      EXPECT_TRUE(test::contains(error.what(), "vit_b_16 takes 224x224 images")) << error.what();
      EXPECT_TRUE(test::contains(error.what(), shapeToString(input))) << error.what();
    }
  }
}

TEST(TorchvisionPresets, ListsCarryTorchvisionsNames) {
  const nlohmann::json resnet = presetLayers("resnet50", {3, 64, 64}, 10);
  EXPECT_EQ(resnet[0]["name"], "conv1");
  EXPECT_EQ(resnet[4]["name"], "layer1.0");
  EXPECT_EQ(resnet[4]["layers"][6]["name"], "conv3");
  EXPECT_EQ(resnet[4]["shortcut"][0]["name"], "downsample.0");
  EXPECT_EQ(resnet.back()["name"], "fc");
  const nlohmann::json vit = presetLayers("vit_b_16", {3, 224, 224}, 10);
  EXPECT_EQ(vit[2]["name"], "encoder.layers.encoder_layer_0");
  EXPECT_EQ(vit[2]["param_names"]["fc2"], "mlp.3");
  // torchvision's ViT normalizes with eps 1e-6 everywhere (the parity test also sees it in the outputs).
  EXPECT_EQ(vit[2]["eps"], 1e-6);
  EXPECT_EQ(vit[14]["name"], "encoder.ln");
  EXPECT_EQ(vit[14]["eps"], 1e-6);
}

}  // namespace
}  // namespace wb
