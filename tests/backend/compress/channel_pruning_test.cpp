// Structured pruning: channels whose every contribution is exactly zero are found as the least important and
// removed without changing a single output (which proves each reader was rewired), real pruning shrinks the
// presets to the expected shapes with residual groups kept consistent, and the selection rules and refusals.

#include "compress/channel_pruning.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "data/dataset_readers.h"
#include "model/layer_list.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

const Shape kImage = {1, 28, 28};

ModelArtifact artifactOf(const ModelConfig& config, const json& layers, const Shape& input, int64_t classes) {
  torch::manual_seed(7);
  auto model = buildModel(config, input, classes);
  return artifactFromModel(*model, layers, "", input, classes);
}

ModelArtifact channelPresetArtifact(const std::string& preset) {
  ModelConfig config;
  config.preset = preset;
  return artifactOf(config, presetLayers(preset, kImage, 10), kImage, 10);
}

ModelArtifact listArtifact(const json& layers, const Shape& input = kImage, int64_t classes = 10) {
  ModelConfig config;
  config.preset = "";
  config.layers = layers;
  return artifactOf(config, layers, input, classes);
}

// The first 64 Fashion-MNIST test images, standardized with the training split's statistics.
const torch::Tensor& fashionImages() {
  static const torch::Tensor images = [] {
    const std::string dir = WB_FASHION_MNIST_DIR;
    const RawSplit raw = readIdx(dir + "/t10k-images-idx3-ubyte.gz", dir + "/t10k-labels-idx1-ubyte.gz");
    return ((raw.inputs.slice(0, 0, 64).to(torch::kFloat32) / 255.0 - 0.2860) / 0.3530).contiguous();
  }();
  return images;
}

torch::Tensor outputsOf(const ModelArtifact& artifact, const torch::Tensor& x) {
  return makeInferenceModel(artifact)->forward(x);
}

// Artifacts share tensors when copied: tests that edit weights work on their own.
ModelArtifact deepCopy(const ModelArtifact& a) {
  ModelArtifact copy = a;
  for (auto* group : {&copy.weights, &copy.buffers, &copy.masks}) {
    for (auto& item : *group) item.second = item.second.clone();
  }
  return copy;
}

bool hasTensor(const ModelArtifact& a, const std::string& name) {
  return a.tensor(name).defined();
}

// Batch norms get statistics and affine parameters unlike their defaults, so a wrongly sliced one shows.
void randomizeBatchNorms(ModelArtifact& a) {
  torch::manual_seed(11);
  torch::NoGradGuard no_grad;
  for (auto& [name, t] : a.buffers) {
    if (name.size() > 13 && name.compare(name.size() - 13, 13, ".running_mean") == 0) {
      t.uniform_(-0.5, 0.5);
      const std::string layer = name.substr(0, name.size() - 13);
      a.tensor(layer + ".running_var").uniform_(0.5, 2.0);
      a.tensor(layer + ".weight").uniform_(0.5, 1.5);
      a.tensor(layer + ".bias").uniform_(-0.3, 0.3);
    }
  }
}

// The batch norm right after a layer in the same list ("layers.3.layers.3" -> "layers.3.layers.4"), if any.
std::string followingBatchNorm(const ModelArtifact& a, const std::string& layer) {
  const size_t dot = layer.rfind('.');
  const std::string next = layer.substr(0, dot + 1) + std::to_string(std::stoi(layer.substr(dot + 1)) + 1);
  return hasTensor(a, next + ".running_mean") ? next : "";
}

// Makes `channels` of `layer` contribute exactly zero: its weight and bias rows, and those of the batch norm
// after it (scale and shift 0 give 0 whatever the statistics).
void silence(ModelArtifact& a, const std::string& layer, const std::vector<int64_t>& channels) {
  torch::NoGradGuard no_grad;
  const torch::Tensor index = torch::tensor(channels, torch::kLong);
  std::vector<std::string> names = {layer + ".weight", layer + ".bias"};
  const std::string bn = followingBatchNorm(a, layer);
  if (!bn.empty()) {
    names.push_back(bn + ".weight");
    names.push_back(bn + ".bias");
  }
  for (const std::string& name : names) {
    if (hasTensor(a, name)) a.tensor(name).index_fill_(0, index, 0.0);
  }
}

std::vector<int64_t> someChannels(int64_t channels, int64_t count, uint64_t seed) {
  torch::manual_seed(seed);
  const torch::Tensor chosen = std::get<0>(torch::randperm(channels).slice(0, 0, count).sort());
  return std::vector<int64_t>(chosen.data_ptr<int64_t>(), chosen.data_ptr<int64_t>() + count);
}

// One group to silence: its producers and how many of its channels.
struct SilentGroup {
  std::vector<std::string> layers;
  int64_t channels;
};

// Silences a quarter of each group's channels, prunes a quarter, and expects exactly those removed and the
// outputs unchanged.
void expectLosslessPrune(const ModelArtifact& original, const std::vector<SilentGroup>& groups,
                         const torch::Tensor& x, const std::string& norm) {
  ModelArtifact a = deepCopy(original);
  randomizeBatchNorms(a);
  std::map<std::string, std::vector<int64_t>> expected;
  uint64_t seed = 100;
  for (const SilentGroup& g : groups) {
    const std::vector<int64_t> chosen = someChannels(g.channels, g.channels / 4, seed++);
    for (const std::string& layer : g.layers) {
      silence(a, layer, chosen);
      expected[layer] = chosen;
    }
  }
  CompressPassConfig pass;
  pass.method = PruneMethod::Structured;
  pass.amount = 0.25;
  pass.norm = *fromWord<PruneNorm>(norm);
  json record = json::object();
  const ModelArtifact pruned = pruneChannels(a, pass, record);

  ASSERT_EQ(record["pruned"].size(), expected.size()) << record.dump(1);
  for (const json& entry : record["pruned"]) {
    const std::string name = entry["name"];
    ASSERT_TRUE(expected.count(name)) << name;
    EXPECT_EQ(entry["removed"].get<std::vector<int64_t>>(), expected[name]) << name;
    EXPECT_EQ(entry["channels_after"].get<int64_t>(),
              entry["channels_before"].get<int64_t>() - static_cast<int64_t>(expected[name].size()));
  }
  const torch::Tensor before = outputsOf(a, x);
  const torch::Tensor after = outputsOf(pruned, x);
  EXPECT_TRUE(torch::allclose(after, before, /*rtol=*/0, /*atol=*/1e-5))
      << norm << ": max difference " << (after - before).abs().max().item<double>();
  EXPECT_LT(countParameters(pruned).total, countParameters(a).total);
}

TEST(ChannelPruning, SilentChannelsOfMlpAreRemovedWithoutChangingOutputs) {
  const ModelArtifact a = channelPresetArtifact("mlp");
  for (const std::string norm : {"l1", "l2"}) {
    expectLosslessPrune(a, {{{"layers.1"}, 256}, {{"layers.4"}, 128}}, fashionImages(), norm);
  }
}

TEST(ChannelPruning, SilentChannelsOfCnnAreRemovedWithoutChangingOutputs) {
  const ModelArtifact a = channelPresetArtifact("cnn");
  for (const std::string norm : {"l1", "l2"}) {
    expectLosslessPrune(a, {{{"layers.0"}, 32}, {{"layers.3"}, 64}, {{"layers.7"}, 1024}}, fashionImages(),
                        norm);
  }
}

// A residual group (the stem with block 1's last conv, each block's last conv with its shortcut conv) is
// silenced in every member; the inner channels of each block are ordinary groups.
TEST(ChannelPruning, SilentChannelsOfResnetGroupsAreRemovedWithoutChangingOutputs) {
  const ModelArtifact a = channelPresetArtifact("resnet");
  expectLosslessPrune(a,
                      {{{"layers.0", "layers.3.layers.3"}, 32},
                       {{"layers.3.layers.0"}, 32},
                       {{"layers.5.layers.0"}, 64},
                       {{"layers.5.layers.3", "layers.5.shortcut.0"}, 64},
                       {{"layers.7.layers.0"}, 128},
                       {{"layers.7.layers.3", "layers.7.shortcut.0"}, 128}},
                      fashionImages(), "l1");
}

// Linear layers on tokens (after a patch embedding): channels are the last dimension, and a flatten of
// tokens spreads channel c over features n*C + c.
TEST(ChannelPruning, LinearsOnTokensAndTheirFlattenAreRewired) {
  const json patch = {{"type", "patch_embed"}, {"patch_size", 7}, {"dim", 16}};
  const ModelArtifact pooled = listArtifact(json::array({patch,
                                                         {{"type", "linear"}, {"out_features", 32}},
                                                         {{"type", "gelu"}},
                                                         {{"type", "linear"}, {"out_features", 16}},
                                                         {{"type", "token_pool"}, {"mode", "mean"}},
                                                         {{"type", "linear"}, {"out_features", 10}}}));
  expectLosslessPrune(pooled, {{{"layers.1"}, 32}}, fashionImages(), "l1");
  const ModelArtifact flat = listArtifact(json::array({patch,
                                                       {{"type", "linear"}, {"out_features", 8}},
                                                       {{"type", "relu"}},
                                                       {{"type", "flatten"}},
                                                       {{"type", "linear"}, {"out_features", 24}},
                                                       {{"type", "relu"}},
                                                       {{"type", "linear"}, {"out_features", 10}}}));
  expectLosslessPrune(flat, {{{"layers.1"}, 8}, {{"layers.4"}, 24}}, fashionImages(), "l2");
}

// Masks of an earlier unstructured pass are sliced with their weights.
TEST(ChannelPruning, MasksAreSlicedWithTheirWeights) {
  ModelArtifact a = channelPresetArtifact("cnn");
  torch::manual_seed(3);
  const torch::Tensor mask = torch::bernoulli(torch::full({64, 32, 5, 5}, 0.8));
  a.tensor("layers.3.weight").mul_(mask);
  a.masks = {{"layers.3.weight", mask}};
  CompressPassConfig pass;
  pass.amount = 0.5;
  json record = json::object();
  const ModelArtifact pruned = pruneChannels(a, pass, record);
  std::map<std::string, torch::Tensor> kept;
  for (const json& entry : record["pruned"]) {
    const int64_t channels = entry["channels_before"];
    torch::Tensor keep = torch::ones({channels}, torch::kBool);
    keep.index_fill_(0, torch::tensor(entry["removed"].get<std::vector<int64_t>>(), torch::kLong), false);
    kept[entry["name"].get<std::string>()] = keep.nonzero().flatten();
  }
  ASSERT_EQ(pruned.masks.size(), 1u);
  const torch::Tensor expected = mask.index_select(0, kept["layers.3"]).index_select(1, kept["layers.0"]);
  EXPECT_TRUE(torch::equal(pruned.masks[0].second, expected));
  const torch::Tensor weight = pruned.tensor("layers.3.weight");
  EXPECT_TRUE(torch::equal(weight, weight * pruned.masks[0].second));
}

// The pruned model computes exactly what the original computes with the removed channels zeroed (their
// producers' rows and the batch norm after them): the shrunk model against the masked one.
void expectEqualsMaskedOriginal(const ModelArtifact& original, const ModelArtifact& pruned,
                                const json& record) {
  ModelArtifact masked = deepCopy(original);
  for (const json& entry : record["pruned"]) {
    silence(masked, entry["name"].get<std::string>(), entry["removed"].get<std::vector<int64_t>>());
  }
  const torch::Tensor x = fashionImages().slice(0, 0, 32);
  const torch::Tensor a = outputsOf(masked, x);
  const torch::Tensor b = outputsOf(pruned, x);
  EXPECT_TRUE(torch::allclose(a, b, 0, 1e-5)) << "max difference " << (a - b).abs().max().item<double>();
}

std::vector<int64_t> shapeOf(const ModelArtifact& a, const std::string& name) {
  const torch::Tensor t = a.tensor(name);
  return t.defined() ? t.sizes().vec() : std::vector<int64_t>{};
}

TEST(ChannelPruning, HalfOfCnnGivesTheExpectedShapesAndCosts) {
  const ModelArtifact a = channelPresetArtifact("cnn");
  CompressPassConfig pass;
  pass.amount = 0.5;
  json record = json::object();
  const ModelArtifact p = pruneChannels(a, pass, record);
  EXPECT_EQ(p.layers[0]["out_channels"], 16);
  EXPECT_EQ(p.layers[3]["out_channels"], 32);
  EXPECT_EQ(p.layers[7]["out_features"], 512);
  EXPECT_EQ(p.layers[10]["out_features"], 10);
  EXPECT_EQ(shapeOf(p, "layers.0.weight"), (std::vector<int64_t>{16, 1, 5, 5}));
  EXPECT_EQ(shapeOf(p, "layers.0.bias"), (std::vector<int64_t>{16}));
  EXPECT_EQ(shapeOf(p, "layers.3.weight"), (std::vector<int64_t>{32, 16, 5, 5}));
  EXPECT_EQ(shapeOf(p, "layers.7.weight"), (std::vector<int64_t>{512, 32 * 7 * 7}));
  EXPECT_EQ(shapeOf(p, "layers.10.weight"), (std::vector<int64_t>{10, 512}));
  EXPECT_EQ(shapeOf(p, "layers.10.bias"), (std::vector<int64_t>{10}));
  EXPECT_EQ(p.num_classes, 10);
  EXPECT_TRUE(record["skipped"].empty());
  ASSERT_EQ(record["pruned"].size(), 3u);
  EXPECT_EQ(record["pruned"][0]["path"], "layers[0]");
  EXPECT_EQ(record["pruned"][0]["rewired"], json::array({"layers[3]"}));
  EXPECT_EQ(record["pruned"][1]["rewired"], json::array({"layers[7]"}));
  EXPECT_EQ(record["pruned"][2]["removed"].size(), 512u);

  // Counts by hand: 1*16*25+16 + 16*32*25+32 + 1568*512+512 + 512*10+10.
  const std::vector<LayerPtr> before = artifactLayers(a);
  const std::vector<LayerPtr> after = artifactLayers(p);
  EXPECT_EQ(parameterCount(after, kImage), 416 + 12832 + 803328 + 5130);
  EXPECT_EQ(countParameters(p).total, parameterCount(after, kImage));
  EXPECT_LT(parameterCount(after, kImage) * 3, parameterCount(before, kImage));
  EXPECT_LT(flopsPerSample(after, kImage) * 3, flopsPerSample(before, kImage));
  expectEqualsMaskedOriginal(a, p, record);
}

TEST(ChannelPruning, HalfOfResnetKeepsEveryResidualGroupConsistent) {
  ModelArtifact a = channelPresetArtifact("resnet");
  randomizeBatchNorms(a);
  CompressPassConfig pass;
  pass.amount = 0.5;
  pass.norm = PruneNorm::L2;
  json record = json::object();
  const ModelArtifact p = pruneChannels(a, pass, record);
  const std::map<std::string, std::vector<int64_t>> shapes = {{"layers.0.weight", {16, 1, 3, 3}},
                                                              {"layers.1.running_var", {16}},
                                                              {"layers.3.layers.0.weight", {16, 16, 3, 3}},
                                                              {"layers.3.layers.3.weight", {16, 16, 3, 3}},
                                                              {"layers.3.layers.4.running_mean", {16}},
                                                              {"layers.5.layers.0.weight", {32, 16, 3, 3}},
                                                              {"layers.5.layers.3.weight", {32, 32, 3, 3}},
                                                              {"layers.5.shortcut.0.weight", {32, 16, 1, 1}},
                                                              {"layers.5.shortcut.1.weight", {32}},
                                                              {"layers.7.layers.0.weight", {64, 32, 3, 3}},
                                                              {"layers.7.layers.3.weight", {64, 64, 3, 3}},
                                                              {"layers.7.shortcut.0.weight", {64, 32, 1, 1}},
                                                              {"layers.11.weight", {10, 64}}};
  for (const auto& [name, shape] : shapes) EXPECT_EQ(shapeOf(p, name), shape) << name;
  EXPECT_EQ(shapeOf(p, "layers.1.num_batches_tracked"), shapeOf(a, "layers.1.num_batches_tracked"));

  // The members of a group lose the same channels and name each other.
  std::map<std::string, json> byName;
  for (const json& entry : record["pruned"]) byName[entry["name"].get<std::string>()] = entry;
  ASSERT_EQ(byName.size(), 9u);
  for (const auto& [x, y] :
       std::vector<std::pair<std::string, std::string>>{{"layers.0", "layers.3.layers.3"},
                                                        {"layers.5.layers.3", "layers.5.shortcut.0"},
                                                        {"layers.7.layers.3", "layers.7.shortcut.0"}}) {
    EXPECT_EQ(byName[x]["removed"], byName[y]["removed"]) << x << " / " << y;
    EXPECT_EQ(byName[x]["coupled_with"], json::array({y}));
  }
  EXPECT_FALSE(byName["layers.3.layers.0"].contains("coupled_with"));
  // Block 1's output is read by block 2's first conv and its shortcut conv (and the batch norms on the way).
  const json rewired = byName["layers.0"]["rewired"];
  for (const char* reader : {"layers[1]", "layers[3].layers[0]", "layers[3].layers[4]", "layers[5].layers[0]",
                             "layers[5].shortcut[0]"}) {
    EXPECT_NE(std::find(rewired.begin(), rewired.end(), reader), rewired.end())
        << reader << " in " << rewired;
  }

  EXPECT_LT(flopsPerSample(artifactLayers(p), kImage) * 3, flopsPerSample(artifactLayers(a), kImage));
  EXPECT_EQ(outputsOf(p, fashionImages()).sizes(), (std::vector<int64_t>{64, 10}));
  expectEqualsMaskedOriginal(a, p, record);
}

TEST(ChannelPruning, TorchScriptAndInt8ArtifactsAreRefused) {
  ModelArtifact ts;
  ts.name = "original";
  ts.torchscript = "/runs/x/model.pt";
  ts.weights = {{"conv.weight", torch::zeros({4, 1, 3, 3})}};
  CompressPassConfig pass;
  json record = json::object();
  try {
    pruneChannels(ts, pass, record);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("TorchScript"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("unstructured"), std::string::npos);
  }
  ModelArtifact int8 = channelPresetArtifact("mlp");
  int8.quantization = {{"mode", "dynamic"}};
  try {
    pruneChannels(int8, pass, record);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("int8"), std::string::npos) << e.what();
  }
}

TEST(ChannelPruning, SelectionByNameTypeAndOutputLayer) {
  const ModelArtifact a = channelPresetArtifact("cnn");
  CompressPassConfig pass;
  pass.amount = 0.5;
  pass.layers = {"layers.3"};
  json record = json::object();
  ModelArtifact p = pruneChannels(a, pass, record);
  ASSERT_EQ(record["pruned"].size(), 1u);
  EXPECT_EQ(record["pruned"][0]["name"], "layers.3");
  EXPECT_EQ(shapeOf(p, "layers.0.weight"), (std::vector<int64_t>{32, 1, 5, 5}));
  EXPECT_EQ(shapeOf(p, "layers.3.weight"), (std::vector<int64_t>{32, 32, 5, 5}));
  EXPECT_EQ(shapeOf(p, "layers.7.weight"), (std::vector<int64_t>{1024, 32 * 49}));
  EXPECT_TRUE(torch::equal(p.tensor("layers.0.weight"), a.tensor("layers.0.weight")));

  pass.layers = {};
  pass.layer_types = {PrunedLayerType::Linear};
  record = json::object();
  p = pruneChannels(a, pass, record);
  ASSERT_EQ(record["pruned"].size(), 1u);
  EXPECT_EQ(record["pruned"][0]["name"], "layers.7");

  // The classes stay: asked to prune the output layer, it is skipped and says why.
  pass.layer_types = {PrunedLayerType::Conv2d, PrunedLayerType::Linear};
  pass.prune_output_layer = true;
  record = json::object();
  p = pruneChannels(a, pass, record);
  EXPECT_EQ(shapeOf(p, "layers.10.weight"), (std::vector<int64_t>{10, 512}));
  ASSERT_EQ(record["skipped"].size(), 1u);
  EXPECT_EQ(record["skipped"][0]["name"], "layers.10");
  EXPECT_NE(record["skipped"][0]["reason"].get<std::string>().find("class"), std::string::npos);

  pass.prune_output_layer = false;
  pass.layers = {"layers.10"};
  EXPECT_THROW(pruneChannels(a, pass, record), UserError);
  pass.layers = {"layers.30"};
  EXPECT_THROW(pruneChannels(a, pass, record), UserError);
}

// round(amount × C) half to even, and never every channel.
TEST(ChannelPruning, CountsRoundHalfToEvenAndKeepOne) {
  const ModelArtifact a = listArtifact(json::array({{{"type", "linear"}, {"out_features", 10}},
                                                    {{"type", "relu"}},
                                                    {{"type", "linear"}, {"out_features", 6}},
                                                    {{"type", "relu"}},
                                                    {{"type", "linear"}, {"out_features", 3}}}),
                                       {5}, 3);
  const std::vector<std::pair<double, std::vector<int64_t>>> cases = {
      {0.25, {8, 4}},   // 2.5 -> 2, 1.5 -> 2
      {0.35, {6, 4}},   // 3.5 -> 4, 2.1 -> 2
      {0.99, {1, 1}}};  // 9.9 -> 10 and 5.94 -> 6: one of each stays
  for (const auto& [amount, kept] : cases) {
    CompressPassConfig pass;
    pass.amount = amount;
    json record = json::object();
    const ModelArtifact p = pruneChannels(a, pass, record);
    EXPECT_EQ(p.layers[0]["out_features"], kept[0]) << amount;
    EXPECT_EQ(p.layers[2]["out_features"], kept[1]) << amount;
    EXPECT_EQ(outputsOf(p, torch::randn({4, 5})).sizes(), (std::vector<int64_t>{4, 3}));
  }
}

// Layers whose channels cannot go are skipped with the reason, the others still pruned.
TEST(ChannelPruning, LayersFeedingLayerNormOrTransformersAreSkipped) {
  const ModelArtifact norm = listArtifact(json::array({{{"type", "flatten"}},
                                                       {{"type", "linear"}, {"out_features", 64}},
                                                       {{"type", "layernorm"}},
                                                       {{"type", "relu"}},
                                                       {{"type", "linear"}, {"out_features", 32}},
                                                       {{"type", "relu"}},
                                                       {{"type", "linear"}, {"out_features", 10}}}));
  CompressPassConfig pass;
  pass.amount = 0.5;
  json record = json::object();
  ModelArtifact p = pruneChannels(norm, pass, record);
  ASSERT_EQ(record["skipped"].size(), 1u);
  EXPECT_EQ(record["skipped"][0]["path"], "layers[1]");
  EXPECT_NE(record["skipped"][0]["reason"].get<std::string>().find("layernorm"), std::string::npos);
  ASSERT_EQ(record["pruned"].size(), 1u);
  EXPECT_EQ(p.layers[4]["out_features"], 16);
  EXPECT_EQ(shapeOf(p, "layers.2.weight"), (std::vector<int64_t>{64}));

  const ModelArtifact vitish =
      listArtifact(json::array({{{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 3}, {"padding", 1}},
                                {{"type", "relu"}},
                                {{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 3}, {"padding", 1}},
                                {{"type", "patch_embed"}, {"patch_size", 7}, {"dim", 16}},
                                {{"type", "position_embedding"}, {"cls_token", true}},
                                {{"type", "encoder_block"}, {"heads", 2}, {"mlp_ratio", 2}},
                                {{"type", "token_pool"}, {"mode", "cls"}},
                                {{"type", "linear"}, {"out_features", 10}}}));
  record = json::object();
  p = pruneChannels(vitish, pass, record);
  ASSERT_EQ(record["pruned"].size(), 1u);
  EXPECT_EQ(record["pruned"][0]["name"], "layers.0");
  ASSERT_EQ(record["skipped"].size(), 1u);
  EXPECT_EQ(record["skipped"][0]["name"], "layers.2");
  EXPECT_NE(record["skipped"][0]["reason"].get<std::string>().find("patch_embed"), std::string::npos);
  EXPECT_EQ(outputsOf(p, fashionImages().slice(0, 0, 4)).sizes(), (std::vector<int64_t>{4, 10}));

  // The ViT preset has nothing structured pruning may remove: a UserError, not a silent no-op.
  EXPECT_THROW(pruneChannels(channelPresetArtifact("vit"), pass, record), UserError);
  pass.layers = {"layers.2"};
  record = json::object();
  try {
    pruneChannels(vitish, pass, record);
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("patch_embed"), std::string::npos) << e.what();
  }
}

// Grouped (depthwise) convs tie their channels to their input's and a squeeze-excitation reads all channels
// at once: the planner does not follow either, so what feeds them, and a grouped conv itself, is skipped by
// name and reason while the rest is pruned, and the pruned model runs.
TEST(ChannelPruning, LayersFeedingGroupedConvsOrSqueezeExcitationAreSkipped) {
  const ModelArtifact depthwise = listArtifact(json::parse(R"([
    {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1},
    {"type": "relu"},
    {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1},
    {"type": "hardswish"},
    {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1, "groups": 8},
    {"type": "adaptive_avgpool2d"},
    {"type": "flatten"},
    {"type": "linear", "out_features": 10}])"));
  CompressPassConfig pass;
  pass.amount = 0.5;
  json record = json::object();
  ModelArtifact p = pruneChannels(depthwise, pass, record);
  ASSERT_EQ(record["pruned"].size(), 1u) << record.dump(1);
  EXPECT_EQ(record["pruned"][0]["name"], "layers.0");
  ASSERT_EQ(record["skipped"].size(), 2u) << record.dump(1);
  EXPECT_EQ(record["skipped"][0]["name"], "layers.2");
  EXPECT_EQ(record["skipped"][1]["name"], "layers.4");
  for (const json& skip : record["skipped"]) {
    EXPECT_NE(skip["reason"].get<std::string>().find("layers[4] (conv2d with groups 8)"), std::string::npos)
        << skip.dump();
  }
  EXPECT_EQ(shapeOf(p, "layers.2.weight"), (std::vector<int64_t>{8, 4, 3, 3}));
  EXPECT_EQ(shapeOf(p, "layers.4.weight"), (std::vector<int64_t>{8, 1, 3, 3}));
  EXPECT_EQ(outputsOf(p, fashionImages().slice(0, 0, 4)).sizes(), (std::vector<int64_t>{4, 10}));

  const ModelArtifact excited = listArtifact(json::parse(R"([
    {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1},
    {"type": "relu"},
    {"type": "squeeze_excitation", "squeeze_channels": 2},
    {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "stride": 2},
    {"type": "relu"},
    {"type": "flatten"},
    {"type": "linear", "out_features": 10}])"));
  record = json::object();
  p = pruneChannels(excited, pass, record);
  ASSERT_EQ(record["pruned"].size(), 1u) << record.dump(1);
  EXPECT_EQ(record["pruned"][0]["name"], "layers.3");
  ASSERT_EQ(record["skipped"].size(), 1u) << record.dump(1);
  EXPECT_EQ(record["skipped"][0]["name"], "layers.0");
  EXPECT_NE(record["skipped"][0]["reason"].get<std::string>().find("squeeze_excitation at layers[2]"),
            std::string::npos)
      << record["skipped"][0].dump();
  EXPECT_EQ(outputsOf(p, fashionImages().slice(0, 0, 4)).sizes(), (std::vector<int64_t>{4, 10}));
}

}  // namespace
}  // namespace wb
