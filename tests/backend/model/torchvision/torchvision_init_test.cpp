// The torchvision presets start from torchvision 0.14's initialization
// (model/torchvision/torchvision_init.h), compared by statistics: tests/fixtures/torchvision_init_stats.json
// (made by make_torchvision_init_stats.py with Debian's torchvision, committed) gives per torchvision tensor
// its numel, mean, std and, for a constant tensor, its value. Ours are other random draws of the same laws,
// so constants must match exactly and the rest within what sampling allows.

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "model/model.h"

namespace wb {
namespace {

using TensorsByName = std::map<std::string, torch::Tensor>;

nlohmann::json initStats() {
  std::ifstream in(std::string(WB_SOURCE_DIR) + "/tests/fixtures/torchvision_init_stats.json");
  return nlohmann::json::parse(in);
}

std::unique_ptr<Model> buildInitModel(const std::string& arch, const nlohmann::json& layers,
                                      int64_t classes) {
  // ViT's position embedding fits 224x224 only; the CNNs' parameters do not depend on the image size.
  const std::vector<int64_t> input =
      arch == "vit_b_16" ? std::vector<int64_t>{3, 224, 224} : std::vector<int64_t>{3, 64, 64};
  ModelConfig config;
  if (layers.is_null())
    config.preset = arch;
  else
    config.layers = layers;
  torch::manual_seed(0);
  return buildModel(config, input, classes);
}

// Our parameters by torchvision's names.
TensorsByName byTorchvisionName(Model& model) {
  const std::map<std::string, std::string> outside = model.externalNames();
  TensorsByName result;
  for (const auto& [name, tensor] : model.namedParameters()) {
    const auto found = outside.find(name);
    result[found == outside.end() ? name : found->second] = tensor.detach().to(torch::kDouble);
  }
  return result;
}

// Sampling tolerances. The std of n independent draws has a relative standard error of sqrt((kurtosis-1)/4n):
// 1/sqrt(2n) for a normal law, less for a uniform one; two independent draws differ by at most 1/sqrt(n) of
// it in standard deviations, and their means by std*sqrt(2/n). Six of those keep ~900 comparisons clear of
// chance failures (tight on big tensors: 3% for a 36864-element conv, where a wrong scheme is off by 40% or
// more). Below 100 elements (resnet's 10-class fc bias) the estimate is too rough: only the order of
// magnitude is checked.
constexpr double kSigmas = 6.0;
constexpr int64_t kSmallTensor = 100;

void expectSameLaw(const std::string& where, const torch::Tensor& ours, const nlohmann::json& theirs) {
  const auto n = theirs.at("numel").get<int64_t>();
  ASSERT_EQ(ours.numel(), n) << where;
  const torch::Tensor flat = ours.flatten();
  if (!theirs.at("constant").is_null()) {
    // torchvision's constants (0, 1, 1e-6) as float32 values: ours are float32 tensors.
    const double constant = static_cast<float>(theirs.at("constant").get<double>());
    EXPECT_TRUE(flat.eq(constant).all().item<bool>())
        << where << ": torchvision's is all " << constant << ", ours ranges " << flat.min().item<double>()
        << " to " << flat.max().item<double>();
    return;
  }
  const double theirStd = theirs.at("std").get<double>();
  const double ourStd = n > 1 ? flat.std().item<double>() : 0.0;
  if (n < kSmallTensor) {
    EXPECT_GT(ourStd, theirStd / 3) << where;
    EXPECT_LT(ourStd, theirStd * 3) << where;
    return;
  }
  const double rootN = std::sqrt(static_cast<double>(n));
  EXPECT_NEAR(ourStd / theirStd, 1.0, kSigmas / rootN)
      << where << ": std " << ourStd << ", torchvision's " << theirStd;
  EXPECT_NEAR(flat.mean().item<double>(), theirs.at("mean").get<double>(),
              kSigmas * theirStd * std::sqrt(2.0) / rootN)
      << where << ": mean";
}

class TorchvisionInit : public ::testing::TestWithParam<std::string> {};

TEST_P(TorchvisionInit, EveryTensorDrawnAsTorchvisionDraws) {
  const nlohmann::json stats = initStats();
  const std::string arch = GetParam();
  const nlohmann::json& reference = stats.at("architectures").at(arch);
  const std::unique_ptr<Model> model = buildInitModel(arch, nullptr, stats.at("num_classes").get<int64_t>());
  const TensorsByName ours = byTorchvisionName(*model);
  std::set<std::string> theirNames;
  for (const auto& [name, row] : reference.items()) {
    theirNames.insert(name);
    const auto found = ours.find(name);
    ASSERT_NE(found, ours.end()) << arch << ": no tensor " << name;
    expectSameLaw(arch + " " + name, found->second, row);
  }
  for (const auto& [name, tensor] : ours)
    EXPECT_TRUE(theirNames.count(name)) << arch << ": extra tensor " << name;
}

INSTANTIATE_TEST_SUITE_P(Presets, TorchvisionInit,
                         ::testing::Values("resnet18", "resnet50", "vit_b_16", "mobilenet_v3_large",
                                           "efficientnet_b0", "convnext_tiny"));

// The same layers written as the user's own model.layers keep LibTorch's defaults: the torchvision schemes
// belong to the presets (ResNet's first conv: kaiming_uniform(a=sqrt(5)) over fan_in, std about 0.048,
// against torchvision's kaiming_normal over fan_out, 0.026).
TEST(TorchvisionInitLayerList, OwnLayerListKeepsLibTorchDefaults) {
  const nlohmann::json stats = initStats();
  const auto classes = stats.at("num_classes").get<int64_t>();
  const std::unique_ptr<Model> own =
      buildInitModel("resnet18", presetLayers("resnet18", {3, 64, 64}, classes), classes);
  const torch::Tensor conv1 = byTorchvisionName(*own).at("conv1.weight");
  const double libtorchStd =
      1.0 / std::sqrt(3.0 * 3 * 7 * 7);  // bound 1/sqrt(fan_in), uniform: bound/sqrt(3)
  EXPECT_NEAR(conv1.std().item<double>(), libtorchStd, 0.002);
  EXPECT_GT(conv1.std().item<double>(),
            1.5 * stats.at("architectures").at("resnet18").at("conv1.weight").at("std").get<double>());
}

}  // namespace
}  // namespace wb
