// Compression of the mobilenet_v3_large, efficientnet_b0 and convnext_tiny presets at 32x32: structured
// pruning removes what it can follow (convs feeding plain convs and residual sums) and skips, by name and
// reason, what feeds a depthwise conv or a squeeze-excitation, leaving a model that runs and is smaller;
// magnitude pruning selects every conv (depthwise included) and linear; static int8 quantizes the convs,
// depthwise included, keeping the float model's predictions.

#include <gtest/gtest.h>

#include "compress/channel_pruning.h"
#include "compress/magnitude_pruning.h"
#include "compress/model_artifact.h"
#include "compress/quantization.h"
#include "support/fashion_subset.h"

namespace wb {
namespace {

using nlohmann::json;

const Shape kMobileSmall = {1, 32, 32};

torch::Tensor mobileSmallImages() {
  return test::resized(test::fashion().train.x.slice(0, 3000, 3064), kMobileSmall).contiguous();
}

ModelArtifact mobilePresetArtifact(const std::string& preset) {
  ModelArtifact a = test::trainedArtifact(presetLayers(preset, kMobileSmall, 10), kMobileSmall, 2, 5);
  a.name = preset;
  return a;
}

TEST(MobilePresetsCompression, StructuredPruningRemovesWhatItFollowsAndNamesWhatItSkips) {
  for (const char* preset : {"mobilenet_v3_large", "efficientnet_b0"}) {
    SCOPED_TRACE(preset);
    const ModelArtifact a = mobilePresetArtifact(preset);
    CompressPassConfig pass;
    pass.method = PruneMethod::Structured;
    pass.amount = 0.25;
    json record = json::object();
    const ModelArtifact pruned = pruneChannels(a, pass, record);
    EXPECT_FALSE(record["pruned"].empty());
    bool depthwiseNamed = false;
    for (const json& skip : record["skipped"]) {
      depthwiseNamed |= skip["reason"].get<std::string>().find("conv2d with groups") != std::string::npos;
    }
    EXPECT_TRUE(depthwiseNamed) << record["skipped"].dump(1);
    EXPECT_LT(countParameters(pruned).total, countParameters(a).total);
    EXPECT_EQ(makeInferenceModel(pruned)->forward(mobileSmallImages()).sizes(),
              (std::vector<int64_t>{64, 10}));
  }
}

TEST(MobilePresetsCompression, MagnitudePruningSelectsEveryConvAndLinear) {
  const ModelArtifact a = mobilePresetArtifact("mobilenet_v3_large");
  CompressPassConfig pass;
  pass.prune_output_layer = true;
  const std::vector<PruneTarget> targets = selectPruneTargets(a, pass);
  // 1 stem + 15 blocks of depthwise and project convs, 14 of them with an expand conv, + 1 last conv
  int64_t convs = 0;
  bool depthwise = false;
  for (const PruneTarget& t : targets) {
    if (t.layer_type == PrunedLayerType::Conv2d) ++convs;
    depthwise |= t.name == "layers.3.layers.0.weight";  // features.1.block.0.0, 16 groups
  }
  EXPECT_EQ(convs, 1 + 15 * 2 + 14 + 1);
  EXPECT_EQ(static_cast<int64_t>(targets.size()), convs + 2);
  EXPECT_TRUE(depthwise);
}

TEST(MobilePresetsCompression, StaticInt8KeepsThePredictions) {
  for (const char* preset : {"mobilenet_v3_large", "convnext_tiny"}) {
    SCOPED_TRACE(preset);
    const ModelArtifact a = mobilePresetArtifact(preset);
    CompressPassConfig pass;
    pass.type = PassType::Quantize;
    pass.mode = QuantizeMode::Static;
    pass.calibration_batches = 2;
    auto batch = std::make_shared<int>(0);
    const QuantizeResult q = quantizeArtifact(
        a, pass,
        [batch]() -> std::optional<torch::Tensor> {
          const int64_t from = 64 * (*batch)++;
          return test::resized(test::fashion().train.x.slice(0, from, from + 64), kMobileSmall);
        },
        {});
    const torch::Tensor x = mobileSmallImages();
    const torch::Tensor expected = makeInferenceModel(a)->forward(x);
    const torch::Tensor got = makeInferenceModel(q.artifact)->forward(x);
    // int8 after two training steps: most predictions kept, the logits within a fraction of their range.
    const double agreement = (got.argmax(1) == expected.argmax(1)).to(torch::kDouble).mean().item<double>();
    const double range = (expected.max() - expected.min()).item<double>();
    std::printf("    %s int8: top-1 agreement %.3f, max |diff| %.3g (logit range %.3g)\n", preset, agreement,
                (got - expected).abs().max().item<double>(), range);
    EXPECT_GE(agreement, 0.8);
    EXPECT_LE((got - expected).abs().max().item<double>(), 0.25 * range);
  }
}

}  // namespace
}  // namespace wb
