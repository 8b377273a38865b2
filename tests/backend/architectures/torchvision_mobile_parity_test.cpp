// The mobilenet_v3_large, efficientnet_b0 and convnext_tiny presets against torchvision 0.14 (issue 40's
// acceptance): the same state_dict keys and shapes through Model::externalNames, the published parameter
// counts, and, with torchvision's random weights loaded through those names, the same outputs on a 2x3x64x64
// batch in eval and training mode and the same running statistics after a training forward.
// tests/fixtures/make_torchvision_mobile_parity.py writes the references at test time; nothing is committed
// or downloaded. Training mode is compared with every dropout and stochastic depth at p = 0 on both sides
// (random masks cannot match); stochastic depth itself is tested in model/mobile_conv_layers_test.cpp.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "model/model.h"
#include "model/torchvision_mobile_presets.h"
#include "weights/weights_reader.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using TensorMap = std::map<std::string, torch::Tensor>;
using ShapeMap = std::map<std::string, std::vector<int64_t>>;

constexpr int64_t kClasses = 1000;
const Shape kInput = {3, 64, 64};

// The preset's layers with its default dropout and stochastic depth (randomness true), or with both at 0.
nlohmann::json mobileLayers(const std::string& arch, bool randomness) {
  if (arch == "mobilenet_v3_large")
    return torchvisionMobileNetV3LargeLayers(kInput, kClasses, randomness ? 0.2 : 0);
  if (arch == "efficientnet_b0") {
    return randomness ? torchvisionEfficientNetB0Layers(kInput, kClasses)
                      : torchvisionEfficientNetB0Layers(kInput, kClasses, 0, 0);
  }
  return torchvisionConvNextTinyLayers(kInput, kClasses, randomness ? 0.1 : 0);
}

// The preset itself (model.preset), or its layers with dropout and stochastic depth at 0.
std::unique_ptr<Model> mobileModel(const std::string& arch, bool randomness) {
  ModelConfig config;
  config.preset = randomness ? arch : "";
  if (!randomness) config.layers = mobileLayers(arch, false);
  return buildModel(config, kInput, kClasses);
}

class TorchvisionMobileParity : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    s_dir =
        (fs::temp_directory_path() / ("wb-test-torchvision-mobile-" + std::to_string(::getpid()))).string();
    const std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                                "/tests/fixtures/make_torchvision_mobile_parity.py " + s_dir + " --size " +
                                std::to_string(kInput[1]) +
                                " mobilenet_v3_large efficientnet_b0 convnext_tiny";
    ASSERT_EQ(std::system(command.c_str()), 0) << command << " (needs python3-torchvision: scripts/setup.sh)";
  }
  static void TearDownTestSuite() { fs::remove_all(s_dir); }

  static std::string file(const std::string& name) { return (fs::path(s_dir) / name).string(); }

  static TensorMap readTensors(const std::string& path) {
    TensorMap tensors;
    for (auto& [name, tensor] : readWeightsFile(path).tensors) tensors[name] = tensor;
    return tensors;
  }

  // Every parameter and buffer of ours under its outside name.
  static TensorMap outsideTensors(Model& model) {
    const std::map<std::string, std::string> names = model.externalNames();
    TensorMap tensors;
    auto add = [&](const std::vector<std::pair<std::string, torch::Tensor>>& named) {
      for (const auto& [key, tensor] : named) {
        const auto it = names.find(key);
        tensors[it == names.end() ? key : it->second] = tensor;
      }
    };
    add(model.namedParameters());
    add(model.namedBuffers());
    return tensors;
  }

  // torchvision's weights copied into ours by outside name; every tensor on both sides is matched.
  static void loadTorchvisionWeights(Model& model, const TensorMap& weights) {
    TensorMap ours = outsideTensors(model);
    ASSERT_EQ(ours.size(), weights.size());
    torch::NoGradGuard noGrad;
    for (auto& [name, tensor] : ours) {
      const auto it = weights.find(name);
      ASSERT_NE(it, weights.end()) << name << " is not in torchvision's state_dict";
      ASSERT_EQ(tensor.sizes(), it->second.sizes()) << name;
      tensor.copy_(it->second);
    }
  }

  // Relative to the reference's largest magnitude: float32 rounding through some 50 to 100 layers gives about
  // 1e-6 here; 1e-4 leaves a hundredfold margin while a wrong eps, activation or mapping is far above it.
  static void expectClose(const torch::Tensor& ours, const torch::Tensor& theirs, const std::string& what) {
    ASSERT_EQ(ours.sizes(), theirs.sizes()) << what;
    const double scale = std::max(theirs.abs().max().item<double>(), 1e-12);
    const double error = (ours.to(torch::kDouble) - theirs.to(torch::kDouble)).abs().max().item<double>();
    std::printf("    %s: largest difference %.3g at scale %.3g (relative %.3g)\n", what.c_str(), error, scale,
                error / scale);
    EXPECT_LE(error / scale, 1e-4) << what << ": largest difference " << error << " at scale " << scale;
  }

  static std::string s_dir;
};

std::string TorchvisionMobileParity::s_dir;

TEST_P(TorchvisionMobileParity, KeysShapesAndParameterCountAreTorchvisions) {
  const std::string arch = GetParam();
  ShapeMap theirs;
  int64_t theirParameters = -1;
  std::ifstream keys(file(arch + ".keys"));
  for (std::string line; std::getline(keys, line);) {
    std::istringstream words(line);
    std::string key;
    words >> key;
    std::vector<int64_t> shape;
    for (int64_t d = 0; words >> d;) shape.push_back(d);
    if (key == "parameters") {
      theirParameters = shape.at(0);
    } else {
      theirs[key] = shape;
    }
  }
  ASSERT_FALSE(theirs.empty()) << file(arch + ".keys");

  const std::unique_ptr<Model> model = mobileModel(arch, true);
  ShapeMap ours;
  for (const auto& [name, tensor] : outsideTensors(*model)) ours[name] = tensor.sizes().vec();
  EXPECT_EQ(ours, theirs);
  const std::map<std::string, int64_t> published = {
      {"mobilenet_v3_large", 5'483'032}, {"efficientnet_b0", 5'288'548}, {"convnext_tiny", 28'589'128}};
  EXPECT_EQ(theirParameters, published.at(arch));
  EXPECT_EQ(model->info().parameters, published.at(arch));
}

TEST_P(TorchvisionMobileParity, OutputsAndRunningStatisticsAreTorchvisionsWithItsWeights) {
  const std::string arch = GetParam();
  const TensorMap weights = readTensors(file(arch + ".pt"));
  const TensorMap io = readTensors(file(arch + ".io.pt"));
  torch::NoGradGuard noGrad;

  const std::unique_ptr<Model> preset = mobileModel(arch, true);
  loadTorchvisionWeights(*preset, weights);
  preset->train(false);
  expectClose(preset->forward(io.at("input")), io.at("eval"), arch + " in eval mode");

  const std::unique_ptr<Model> model = mobileModel(arch, false);
  loadTorchvisionWeights(*model, weights);
  model->train(true);
  expectClose(model->forward(io.at("input")), io.at("train"), arch + " in training mode");

  // The training forward updated the batch norms' running statistics as torch's did (momentum included).
  const TensorMap ours = outsideTensors(*model);
  const TensorMap after = readTensors(file(arch + ".after_train.pt"));
  for (const auto& [name, buffer] : after) {
    ASSERT_TRUE(ours.count(name)) << name;
    if (buffer.scalar_type() == torch::kLong) {
      EXPECT_TRUE(torch::equal(ours.at(name), buffer)) << name;
    } else {
      const double scale = std::max(buffer.abs().max().item<double>(), 1e-12);
      const double error = (ours.at(name).to(torch::kDouble) - buffer).abs().max().item<double>();
      EXPECT_LE(error / scale, 1e-4) << name << " after the training forward";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, TorchvisionMobileParity,
                         ::testing::Values("mobilenet_v3_large", "efficientnet_b0", "convnext_tiny"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace wb
