// Weights files of layer-list models: a round trip restores parameters and buffers; a file of another model
// is refused with the first tensor that does not fit, before anything is overwritten.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/model.h"
#include "python_models.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

std::unique_ptr<Model> fromLayers(const json& layers) {
  ModelConfig config;
  config.preset.clear();
  config.layers = layers;
  return buildModel(config, test::kFashionImage, 10);
}

std::unique_ptr<Model> savedPreset(const std::string& name) {
  ModelConfig config;
  config.preset = name;
  return buildModel(config, test::kFashionImage, 10);
}

bool sameTensors(const std::vector<std::pair<std::string, torch::Tensor>>& a,
                 const std::vector<std::pair<std::string, torch::Tensor>>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].first != b[i].first || !torch::equal(a[i].second, b[i].second)) return false;
  }
  return true;
}

TEST(SaveLoad, RoundTripRestoresParametersAndBuffers) {
  const std::string dir = test::makeTempDir("save_load");
  const std::string file = dir + "/model.pt";
  torch::manual_seed(1);
  const auto saved = savedPreset("resnet");
  // running statistics that differ from a fresh model's
  saved->train(true);
  saved->forward(torch::randn({4, 1, 28, 28}));
  saved->save(file);

  torch::manual_seed(2);
  const auto loaded = savedPreset("resnet");
  ASSERT_FALSE(sameTensors(saved->namedParameters(), loaded->namedParameters()));
  ASSERT_FALSE(sameTensors(saved->namedBuffers(), loaded->namedBuffers()));
  loaded->load(file);
  EXPECT_TRUE(sameTensors(saved->namedParameters(), loaded->namedParameters()));
  EXPECT_TRUE(sameTensors(saved->namedBuffers(), loaded->namedBuffers()));

  // written whole: nothing but the file itself is left in the folder
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()),
            1);
}

TEST(SaveLoad, ShapeMismatchNamesTheTensorAndLeavesTheModelUntouched) {
  const std::string file = test::makeTempDir("mismatch") + "/model.pt";
  savedPreset("cnn")->save(file);
  json narrower = presetLayers("cnn", test::kFashionImage, 10);
  narrower[3]["out_channels"] = 48;  // the second conv
  const auto model = fromLayers(narrower);
  const auto before = model->namedParameters();
  std::vector<torch::Tensor> copies;
  for (const auto& [name, tensor] : before) copies.push_back(tensor.clone());

  EXPECT_EQ(
      test::userErrorOf([&] { model->load(file); }),
      file + ": layers.3.weight has shape [64, 32, 5, 5], the experiment's model expects [48, 32, 5, 5]");
  for (size_t i = 0; i < copies.size(); ++i)
    EXPECT_TRUE(torch::equal(copies[i], before[i].second)) << before[i].first;
}

TEST(SaveLoad, MissingTensorIsNamed) {
  const std::string file = test::makeTempDir("missing") + "/mlp.pt";
  savedPreset("mlp")->save(file);
  const std::string message = test::userErrorOf([&] { savedPreset("cnn")->load(file); });
  EXPECT_EQ(message.find(file + ": layers.0.weight is missing"), 0u) << message;
}

TEST(SaveLoad, MissingOrDamagedFileIsAUserError) {
  const std::string dir = test::makeTempDir("damaged");
  const auto model = savedPreset("mlp");
  EXPECT_EQ(test::userErrorOf([&] { model->load(dir + "/absent.pt"); }),
            dir + "/absent.pt: no such weights file");
  std::ofstream(dir + "/garbage.pt") << "not a zip archive";
  const std::string message = test::userErrorOf([&] { model->load(dir + "/garbage.pt"); });
  EXPECT_NE(message.find("not a weights file"), std::string::npos) << message;
  EXPECT_NE(test::userErrorOf([&] {
              model->save(dir + "/no/such/folder/model.pt");
            }).find("no/such/folder/model.pt"),
            std::string::npos);
}

}  // namespace
}  // namespace wb
