// Unstructured pruning: torch.nn.utils.prune's semantics (round(amount × live) entries, smallest |w| first,
// global or per layer), masks that survive optimizer steps, and the cubic schedule.

#include "compress/magnitude_pruning.h"

#include <gtest/gtest.h>

#include <cmath>

#include "model/layer_list.h"
#include "model/layer_net_model.h"
#include "optim/optimizer_factory.h"
#include "workbench/errors.h"

namespace wb {
namespace {

ModelArtifact presetArtifact(const std::string& preset, Shape input = {1, 28, 28}) {
  torch::manual_seed(7);
  ModelConfig config;
  config.preset = preset;
  auto model = buildModel(config, input, 10);
  return artifactFromModel(*model, presetLayers(preset, input, 10), "", input, 10);
}

std::vector<torch::Tensor> paramsOf(Model& model, const std::vector<PruneTarget>& targets) {
  std::vector<torch::Tensor> out;
  for (const PruneTarget& t : targets) {
    for (const auto& [name, p] : model.namedParameters()) {
      if (name == t.name) out.push_back(p);
    }
  }
  return out;
}

int64_t zeros(const torch::Tensor& t) {
  return t.numel() - t.count_nonzero().item<int64_t>();
}

TEST(MagnitudePruning, SelectsConvAndLinearWeightsButNotTheOutputLayer) {
  const ModelArtifact cnn = presetArtifact("cnn");
  CompressPassConfig pass;
  auto targets = selectPruneTargets(cnn, pass);
  std::vector<std::string> names;
  for (const auto& t : targets) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"layers.0.weight", "layers.3.weight", "layers.7.weight"}));
  pass.prune_output_layer = true;
  EXPECT_EQ(selectPruneTargets(cnn, pass).size(), 4u);
  pass.layer_types = {PrunedLayerType::Conv2d};
  EXPECT_EQ(selectPruneTargets(cnn, pass).size(), 2u);
  pass.layers = {"layers.3"};
  ASSERT_EQ(selectPruneTargets(cnn, pass).size(), 1u);
  pass.layers = {"layers.30"};
  EXPECT_THROW(selectPruneTargets(cnn, pass), UserError);

  const ModelArtifact resnet = presetArtifact("resnet");
  CompressPassConfig convs;
  convs.layer_types = {PrunedLayerType::Conv2d};
  const auto inside = selectPruneTargets(resnet, convs);
  EXPECT_EQ(inside.size(), 9u);  // the stem, 2 per block (3 blocks), the 2 shortcut convs
  EXPECT_EQ(inside[1].name, "layers.3.layers.0.weight");
}

TEST(MagnitudePruning, GlobalAndPerLayerReachTheTargetExactly) {
  for (const bool global : {true, false}) {
    ModelArtifact a = presetArtifact("mlp");
    auto model = buildFloatModel(a);
    CompressPassConfig pass;
    const auto targets = selectPruneTargets(a, pass);
    PruningMasks masks(targets, paramsOf(*model, targets), {});
    masks.pruneShareOfLive(0.6, global);
    int64_t total = 0, pruned = 0;
    for (const auto& p : paramsOf(*model, targets)) {
      total += p.numel();
      pruned += zeros(p);
      // Per layer, each tensor alone is at the amount (within one weight of rounding).
      if (!global) {
        EXPECT_LE(std::abs(static_cast<double>(zeros(p)) - 0.6 * p.numel()), 1.0);
      }
    }
    EXPECT_LE(std::abs(static_cast<double>(pruned) - 0.6 * total), 1.0) << (global ? "global" : "layer");
    // The pruned entries are the smallest: every surviving |w| >= every pruned original |w| (global).
    if (global) {
      std::vector<torch::Tensor> kept;
      for (const auto& p : paramsOf(*model, targets))
        kept.push_back(p.abs().flatten().masked_select(p.flatten() != 0));
      std::vector<torch::Tensor> originals;
      for (const auto& t : targets) originals.push_back(a.tensor(t.name).abs().flatten());
      const torch::Tensor all = torch::cat(originals);
      const double threshold =
          std::get<0>(all.kthvalue(static_cast<int64_t>(std::nearbyint(0.6 * total)))).item<double>();
      EXPECT_GE(torch::cat(kept).min().item<double>(), threshold);
    }
  }
}

// torch.nn.utils.prune applied twice prunes amount of what is left: 0.5 then 0.5 leaves a quarter.
TEST(MagnitudePruning, SecondPruneTakesAShareOfTheLiveWeights) {
  ModelArtifact a = presetArtifact("mlp");
  auto model = buildFloatModel(a);
  CompressPassConfig pass;
  const auto targets = selectPruneTargets(a, pass);
  PruningMasks masks(targets, paramsOf(*model, targets), {});
  masks.pruneShareOfLive(0.5, false);
  const NamedTensors first = masks.masks();
  PruningMasks again(targets, paramsOf(*model, targets), first);  // as the next pass starts from the artifact
  again.pruneShareOfLive(0.5, false);
  for (const auto& [name, m] : again.masks()) {
    const double kept = static_cast<double>(m.count_nonzero().item<int64_t>()) / m.numel();
    EXPECT_NEAR(kept, 0.25, 1.0 / m.numel() * 2) << name;
  }
  // Entries pruned the first time are still pruned.
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(((first[i].second == 0) & (again.masks()[i].second != 0)).sum().item<int64_t>(), 0);
  }
}

// The masks as step parts: after many AdamW steps with weight decay, pruned weights are still exactly zero
// and the live ones did train.
TEST(MagnitudePruning, PrunedWeightsStayZeroThroughAdamWSteps) {
  ModelArtifact a = presetArtifact("mlp", {20});
  auto model = buildFloatModel(a);
  CompressPassConfig pass;
  const auto targets = selectPruneTargets(a, pass);
  PruningMasks masks(targets, paramsOf(*model, targets), {});
  masks.pruneShareOfLive(0.7, true);
  OptimizerConfig oc;
  oc.name = OptimizerName::AdamW;
  oc.lr = 1e-2;
  oc.weight_decay = 0.1;
  auto optimizer = makeOptimizer(oc, model->namedParameters());
  const NamedTensors before = masks.masks();
  torch::Tensor first_live;
  const auto params = paramsOf(*model, targets);
  first_live = params[0].detach().clone();
  for (int step = 0; step < 25; ++step) {
    optimizer->zero_grad();
    const torch::Tensor x = torch::randn({32, 20});
    const torch::Tensor y = torch::randint(0, 10, {32});
    torch::nn::functional::cross_entropy(model->forward(x), y).backward();
    masks.zeroPrunedGradients();
    optimizer->step();
    masks.applyToWeights();
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const torch::Tensor pruned = before[i].second == 0;
    EXPECT_EQ(params[i].masked_select(pruned).abs().max().item<double>(), 0.0) << targets[i].name;
  }
  EXPECT_FALSE(torch::equal(first_live, params[0].detach()));  // the live weights trained
  EXPECT_NEAR(masks.sparsity(), 0.7, 1e-3);
}

TEST(MagnitudePruning, CubicScheduleRisesFromInitialToTarget) {
  EXPECT_DOUBLE_EQ(cubicSparsity(0.0, 0.9, 0, 100), 0.0);
  EXPECT_DOUBLE_EQ(cubicSparsity(0.0, 0.9, 100, 100), 0.9);
  EXPECT_NEAR(cubicSparsity(0.0, 0.9, 50, 100), 0.9 - 0.9 * 0.125, 1e-12);
  EXPECT_NEAR(cubicSparsity(0.2, 0.6, 25, 100), 0.6 + (0.2 - 0.6) * std::pow(0.75, 3), 1e-12);
  double previous = 0;
  for (int t = 0; t <= 100; ++t) {
    const double s = cubicSparsity(0.0, 0.8, t, 100);
    EXPECT_GE(s, previous);
    previous = s;
  }
}

TEST(MagnitudePruning, TorchScriptWeightsAreFoundByShape) {
  ModelArtifact a;
  a.name = "ts";
  a.torchscript = "model.pt";
  a.weights = {{"conv.weight", torch::zeros({4, 1, 3, 3})},
               {"conv.bias", torch::zeros({4})},
               {"fc.weight", torch::zeros({8, 16})},
               {"out.weight", torch::zeros({10, 8})}};
  CompressPassConfig pass;
  const auto targets = selectPruneTargets(a, pass);
  ASSERT_EQ(targets.size(), 2u);
  EXPECT_TRUE(targets[0].layer_type == PrunedLayerType::Conv2d);
  EXPECT_EQ(targets[1].name, "fc.weight");
}

}  // namespace
}  // namespace wb
