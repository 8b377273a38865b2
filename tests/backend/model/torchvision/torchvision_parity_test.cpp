// The resnet18, resnet50, vit_b_16, mobilenet_v3_large, efficientnet_b0 and convnext_tiny presets against
// torchvision 0.14 (issue 40's acceptance): the same state_dict keys and shapes through Model::externalNames,
// the published parameter counts, and, with torchvision's random weights loaded through those names, the same
// outputs in eval and training mode and the same running statistics after a training forward.
// tests/fixtures/make_torchvision_parity.py writes the references once per run of the test binary (Debian's
// python3-torchvision: scripts/setup.sh); nothing is committed or downloaded. Training mode is compared with
// every dropout and stochastic depth at p = 0 on both sides (random masks cannot match); stochastic depth
// itself is tested in model/mobile_conv_layers_test.cpp.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "model/model.h"
#include "model/torchvision/torchvision_mobile_presets.h"
#include "support/temporary_folder.h"
#include "weights/weights_reader.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using TensorMap = std::map<std::string, torch::Tensor>;
using ShapeMap = std::map<std::string, std::vector<int64_t>>;

constexpr int64_t kImageNetClasses = 1000;
constexpr int64_t kParityImageSize = 64;  // small enough for a fast test, large enough for every stage
const Shape kParityInput = {3, kParityImageSize, kParityImageSize};

// A difference is allowed up to relative x the reference's largest magnitude, plus absolute.
struct ParityTolerance {
  double relative;
  double absolute;
};

// The references are float64 (make_torchvision_parity.py), so the difference is our float32 rounding alone.
// ResNets and ViT: eval mode stays near 1e-6 of the scale (resnet50, vit_b_16); training mode normalizes by
// batch statistics of as few as 8 values per channel (layer4 of a 64x64 batch of 2), which amplifies rounding
// up to about 6e-5: each bound keeps a margin of 15x or more over what was seen, while a wrong eps in ViT's
// layer norms (1e-5 for 1e-6) already gives 3e-3.
constexpr ParityTolerance kEvalTolerance = {1e-4, 1e-6};
constexpr ParityTolerance kTrainingTolerance = {1e-3, 1e-6};
// MobileNet, EfficientNet and ConvNeXt: float32 rounding through some 50 to 100 layers gives about 1e-6 of
// the scale in both modes; 1e-4 leaves a hundredfold margin while a wrong eps, activation or mapping is far
// above it.
constexpr ParityTolerance kMobileTolerance = {1e-4, 0};

// What differs between the architectures.
struct ParityArchitecture {
  std::string name;
  int64_t publishedParameters;
  Shape input;
  ParityTolerance eval;
  ParityTolerance training;  // the training-mode outputs and the running statistics after that forward
  // The preset's layers with every dropout and stochastic depth at 0, for the training-mode comparison; empty
  // where the preset has none to switch off (the ResNets; ViT's are at 0 already).
  std::function<nlohmann::json()> layersWithoutRandomness;
};

const std::vector<ParityArchitecture>& parityArchitectures() {
  static const std::vector<ParityArchitecture> architectures = {
      {"resnet18", 11'689'512, kParityInput, kEvalTolerance, kTrainingTolerance, {}},
      {"resnet50", 25'557'032, kParityInput, kEvalTolerance, kTrainingTolerance, {}},
      {"vit_b_16", 86'567'656, {3, 224, 224}, kEvalTolerance, kTrainingTolerance, {}},
      {"mobilenet_v3_large", 5'483'032, kParityInput, kMobileTolerance, kMobileTolerance,
       [] { return torchvisionMobileNetV3LargeLayers(kParityInput, kImageNetClasses, 0); }},
      {"efficientnet_b0", 5'288'548, kParityInput, kMobileTolerance, kMobileTolerance,
       [] { return torchvisionEfficientNetB0Layers(kParityInput, kImageNetClasses, 0, 0); }},
      {"convnext_tiny", 28'589'128, kParityInput, kMobileTolerance, kMobileTolerance,
       [] { return torchvisionConvNextTinyLayers(kParityInput, kImageNetClasses, 0); }},
  };
  return architectures;
}

// gtest names the architecture in a failure's GetParam() line.
void PrintTo(const ParityArchitecture& arch, std::ostream* out) {
  *out << arch.name;
}

// The preset itself (model.preset).
std::unique_ptr<Model> parityPreset(const ParityArchitecture& arch) {
  ModelConfig config;
  config.preset = arch.name;
  return buildModel(config, arch.input, kImageNetClasses);
}

TensorMap readParityTensors(const std::string& path) {
  TensorMap tensors;
  for (auto& [name, tensor] : readWeightsFile(path).tensors) tensors[name] = tensor;
  return tensors;
}

// Every parameter and buffer of ours under its outside name.
TensorMap outsideTensors(Model& model) {
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
void loadTorchvisionWeights(Model& model, const TensorMap& weights) {
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

// The largest difference against the reference's largest magnitude (report: also printed, to show the
// margin).
void expectClose(const torch::Tensor& ours, const torch::Tensor& theirs, ParityTolerance tolerance,
                 const std::string& what, bool report = false) {
  ASSERT_EQ(ours.sizes(), theirs.sizes()) << what;
  const double scale = std::max(theirs.abs().max().item<double>(), 1e-12);
  const double error = (ours.to(torch::kDouble) - theirs.to(torch::kDouble)).abs().max().item<double>();
  if (report) {
    std::printf("    %s: largest difference %.3g at scale %.3g (relative %.3g)\n", what.c_str(), error, scale,
                error / scale);
  }
  EXPECT_LE(error, tolerance.relative * scale + tolerance.absolute)
      << what << ": largest difference " << error << " at scale " << scale;
}

class TorchvisionParity : public ::testing::TestWithParam<ParityArchitecture> {
 protected:
  // All six architectures' references in one Python run (one import of torch for the whole binary).
  static void SetUpTestSuite() {
    s_dir = test::folderForThisTest("test-torchvision") + "/references";  // removed when the suite ends
    std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                          "/tests/fixtures/make_torchvision_parity.py " + s_dir + " --size " +
                          std::to_string(kParityImageSize);
    for (const ParityArchitecture& arch : parityArchitectures()) command += " " + arch.name;
    ASSERT_EQ(std::system(command.c_str()), 0) << command << " (needs python3-torchvision: scripts/setup.sh)";
  }

  static std::string file(const std::string& name) { return (fs::path(s_dir) / name).string(); }

  static std::string s_dir;
};

std::string TorchvisionParity::s_dir;

TEST_P(TorchvisionParity, KeysShapesAndParameterCountAreTorchvisions) {
  const ParityArchitecture& arch = GetParam();
  ShapeMap theirs;
  int64_t theirParameters = -1;
  std::ifstream keys(file(arch.name + ".keys"));
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
  ASSERT_FALSE(theirs.empty()) << file(arch.name + ".keys");

  const std::unique_ptr<Model> model = parityPreset(arch);
  ShapeMap ours;
  for (const auto& [name, tensor] : outsideTensors(*model)) ours[name] = tensor.sizes().vec();
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(theirParameters, arch.publishedParameters);
  EXPECT_EQ(model->info().parameters, arch.publishedParameters);
}

TEST_P(TorchvisionParity, OutputsAndRunningStatisticsAreTorchvisionsWithItsWeights) {
  const ParityArchitecture& arch = GetParam();
  const TensorMap weights = readParityTensors(file(arch.name + ".pt"));
  const TensorMap io = readParityTensors(file(arch.name + ".io.pt"));
  torch::NoGradGuard noGrad;

  const std::unique_ptr<Model> preset = parityPreset(arch);
  loadTorchvisionWeights(*preset, weights);
  preset->train(false);
  expectClose(preset->forward(io.at("input")), io.at("eval"), arch.eval, arch.name + " in eval mode", true);

  // Training mode on the preset's layers with dropout and stochastic depth at 0, where it has any.
  std::unique_ptr<Model> withoutRandomness;
  if (arch.layersWithoutRandomness) {
    ModelConfig config;
    config.layers = arch.layersWithoutRandomness();
    withoutRandomness = buildModel(config, arch.input, kImageNetClasses);
    loadTorchvisionWeights(*withoutRandomness, weights);
  }
  Model& model = withoutRandomness ? *withoutRandomness : *preset;
  model.train(true);
  expectClose(model.forward(io.at("input")), io.at("train"), arch.training, arch.name + " in training mode",
              true);

  // The training forward updated the batch norms' running statistics as torch's did (momentum included).
  const TensorMap ours = outsideTensors(model);
  const TensorMap after = readParityTensors(file(arch.name + ".after_train.pt"));
  for (const auto& [name, buffer] : after) {
    ASSERT_TRUE(ours.count(name)) << name;
    if (buffer.scalar_type() == torch::kLong) {
      EXPECT_TRUE(torch::equal(ours.at(name), buffer)) << name;
    } else {
      expectClose(ours.at(name), buffer, arch.training, name + " after the training forward");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, TorchvisionParity, ::testing::ValuesIn(parityArchitectures()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace wb
