// The presets against the same architectures written in plain PyTorch
// (tests/fixtures/make_torchscript_model.py): equal parameter counts and names, and equal outputs once the
// Python weights are copied in.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "model/model.h"
#include "python_models.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

const std::vector<std::string> kPresets = {"mlp", "cnn", "resnet", "vit"};

std::unique_ptr<Model> preset(const std::string& name,
                              const std::vector<int64_t>& input = test::kFashionImage, int64_t classes = 10) {
  ModelConfig config;
  config.preset = name;
  return buildModel(config, input, classes);
}

std::unique_ptr<Model> torchscript(const std::string& file) {
  ModelConfig config;
  config.preset.clear();
  config.torchscript = file;
  return buildModel(config, test::kFashionImage, 10);
}

int64_t numelSum(const std::vector<std::pair<std::string, torch::Tensor>>& tensors) {
  int64_t total = 0;
  for (const auto& [name, tensor] : tensors) total += tensor.numel();
  return total;
}

std::set<std::string> names(const std::vector<std::pair<std::string, torch::Tensor>>& tensors) {
  std::set<std::string> result;
  for (const auto& [name, tensor] : tensors) result.insert(name);
  return result;
}

void copyByName(Model& from, Model& into) {
  std::map<std::string, torch::Tensor> source;
  for (const auto& [name, tensor] : from.namedParameters()) source[name] = tensor;
  for (const auto& [name, tensor] : from.namedBuffers()) source[name] = tensor;
  torch::NoGradGuard noGrad;
  for (auto& [name, tensor] : into.namedParameters()) tensor.copy_(source.at(name));
  for (auto& [name, tensor] : into.namedBuffers()) tensor.copy_(source.at(name));
}

TEST(Presets, ParameterCountsEqualPyTorchs) {
  const test::PythonModels& python = test::pythonModels();
  for (const std::string& name : kPresets) {
    SCOPED_TRACE(name);
    const auto model = preset(name);
    const int64_t pytorchCount = python.parameterCounts.at(name);
    EXPECT_EQ(model->info().parameters, pytorchCount);            // from the layer descriptions
    EXPECT_EQ(numelSum(model->namedParameters()), pytorchCount);  // from the instantiated modules
  }
  EXPECT_EQ(python.parameterCounts.at("cnn"), 3274634);
}

TEST(Presets, ParameterAndBufferNamesEqualPyTorchs) {
  const test::PythonModels& python = test::pythonModels();
  for (const std::string& name : kPresets) {
    SCOPED_TRACE(name);
    const auto ours = preset(name);
    const auto theirs = torchscript(python.path(name));
    EXPECT_EQ(names(ours->namedParameters()), names(theirs->namedParameters()));
    EXPECT_EQ(names(ours->namedBuffers()), names(theirs->namedBuffers()));
  }
}

TEST(Presets, OutputsEqualPyTorchsWithTheSameWeights) {
  const test::PythonModels& python = test::pythonModels();
  torch::manual_seed(3);
  const torch::Tensor input = torch::randn({3, 1, 28, 28});
  for (const std::string& name : kPresets) {
    SCOPED_TRACE(name);
    const auto ours = preset(name);
    const auto theirs = torchscript(python.path(name));
    copyByName(*theirs, *ours);
    ours->train(false);
    theirs->train(false);
    torch::NoGradGuard noGrad;
    const torch::Tensor expected = theirs->forward(input);
    const torch::Tensor actual = ours->forward(input);
    ASSERT_EQ(actual.sizes(), expected.sizes());
    EXPECT_TRUE(torch::allclose(actual, expected, /*rtol=*/1e-4, /*atol=*/1e-5))
        << "largest difference " << (actual - expected).abs().max().item<float>();
  }
}

TEST(Presets, CnnFlopsFollowTheArchitecture) {
  // Two FLOPs per multiply-add: conv = C_out*H_out*W_out*C_in*k*k MACs, linear = in*out MACs; the rest is
  // free.
  const int64_t conv1 = 32LL * 28 * 28 * 1 * 5 * 5;
  const int64_t conv2 = 64LL * 14 * 14 * 32 * 5 * 5;
  const int64_t fc1 = 64LL * 7 * 7 * 1024;
  const int64_t fc2 = 1024LL * 10;
  EXPECT_EQ(preset("cnn")->info().flops_per_sample, 2 * (conv1 + conv2 + fc1 + fc2));
  EXPECT_EQ(preset("mlp")->info().flops_per_sample, 2 * (784LL * 256 + 256 * 128 + 128 * 10));
}

TEST(Presets, GradientsReachEveryParameter) {
  torch::manual_seed(4);
  const torch::Tensor input = torch::randn({4, 1, 28, 28});
  const torch::Tensor labels = torch::tensor({0, 3, 7, 9}, torch::kLong);
  for (const std::string& name : kPresets) {
    SCOPED_TRACE(name);
    const auto model = preset(name);
    model->train(true);
    torch::nn::functional::cross_entropy(model->forward(input), labels).backward();
    for (const auto& [parameter, tensor] : model->namedParameters()) {
      ASSERT_TRUE(tensor.grad().defined()) << parameter;
      EXPECT_GT(tensor.grad().abs().sum().item<double>(), 0.0) << parameter;
    }
  }
}

TEST(Presets, InfoDescribesTheModel) {
  const ModelInfo info = preset("cnn")->info();
  EXPECT_EQ(info.output_shape, (std::vector<int64_t>{10}));
  EXPECT_NE(info.summary.find("3,274,634 parameters"), std::string::npos) << info.summary;
  EXPECT_NE(info.summary.find("conv2d"), std::string::npos);
  EXPECT_NE(info.summary.find("[64, 7, 7]"), std::string::npos);
  // a header, the input row, one row per layer and the total
  EXPECT_EQ(std::count(info.summary.begin(), info.summary.end(), '\n'), 2 + 11 + 1) << info.summary;

  const std::string resnet = preset("resnet")->info().summary;
  EXPECT_NE(resnet.find("5.shortcut.0"), std::string::npos) << resnet;  // residual branches are listed too
}

TEST(Presets, ImagePresetsFitOtherImageSizes) {
  for (const std::string& name : kPresets) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(checkLayers(presetLayers(name, {3, 32, 32}, 100), {3, 32, 32}, 100).empty());
    EXPECT_TRUE(checkLayers(presetLayers(name, {3, 24, 40}, 5), {3, 24, 40}, 5).empty());
  }
  EXPECT_EQ(presetLayers("vit", {3, 32, 32}, 10)[0]["patch_size"], 4);
  EXPECT_EQ(presetLayers("vit", {1, 28, 28}, 10)[0]["patch_size"], 7);
  const json vit = presetLayers("vit", {3, 24, 40}, 5)[0];
  EXPECT_EQ(24 % vit["patch_size"].get<int64_t>(), 0);
  EXPECT_EQ(40 % vit["patch_size"].get<int64_t>(), 0);
}

TEST(Presets, FeatureInputsTakeOnlyTheMlp) {
  const auto mlp = preset("mlp", {20}, 3);
  EXPECT_EQ(mlp->forward(torch::randn({5, 20})).sizes(), (torch::IntArrayRef{5, 3}));
  for (const std::string name : {"cnn", "resnet", "vit"}) {
    try {
      presetLayers(name, {20}, 3);
      ADD_FAILURE() << name << " accepted feature data";
    } catch (const UserError& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find("needs image data"), std::string::npos) << message;
      EXPECT_NE(message.find("use the mlp preset"), std::string::npos) << message;
    }
  }
}

TEST(Presets, UnknownPresetSuggestsOne) {
  try {
    presetLayers("cnnn", test::kFashionImage, 10);
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("Did you mean \"cnn\"?"), std::string::npos) << error.what();
  }
}

TEST(Presets, WrongInputShapeAtForwardIsAUserError) {
  const auto model = preset("cnn");
  EXPECT_THROW(model->forward(torch::randn({2, 3, 28, 28})), UserError);
}

}  // namespace
}  // namespace wb
