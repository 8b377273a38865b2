// Every layer type describes itself (output shape, parameter count, JSON) consistently with the torch module
// it instantiates: the description is what checkLayers, the summary and later passes rely on without running.

#include <gtest/gtest.h>

#include <set>

#include "model/layer_registry.h"
#include "model/model.h"

namespace wb {
namespace {

using nlohmann::json;

struct LayerCase {
  json layer;
  Shape input;
  Shape output;
};

LayerPtr parsed(const json& layer) {
  std::vector<ValidationIssue> issues;
  LayerPtr result = parseLayer(layer, "model.layers[0]", issues);
  for (const ValidationIssue& issue : issues)
    ADD_FAILURE() << layer.dump() << ": " << issue.path << ": " << issue.message;
  return result;
}

const std::vector<LayerCase>& layerCases() {
  static const std::vector<LayerCase> cases = {
      {{{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 3}}, {3, 10, 12}, {8, 8, 10}},
      // (9 + 2*1 - 3) / 2 + 1 = 5 rows, (9 + 2*2 - 5) / 1 + 1 = 9 columns
      {{{"type", "conv2d"},
        {"out_channels", 4},
        {"kernel_size", {3, 5}},
        {"stride", {2, 1}},
        {"padding", {1, 2}},
        {"bias", false}},
       {2, 9, 9},
       {4, 5, 9}},
      // depthwise: one 3x3 filter per channel
      {{{"type", "conv2d"}, {"out_channels", 6}, {"kernel_size", 3}, {"padding", 1}, {"groups", 6}},
       {6, 5, 5},
       {6, 5, 5}},
      {{{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 1}, {"groups", 2}}, {4, 3, 3}, {8, 3, 3}},
      {{{"type", "batchnorm2d"}}, {3, 4, 4}, {3, 4, 4}},
      {{{"type", "batchnorm2d"}, {"eps", 0.001}, {"momentum", 0.01}}, {3, 4, 4}, {3, 4, 4}},
      {{{"type", "squeeze_excitation"}, {"squeeze_channels", 4}}, {16, 5, 5}, {16, 5, 5}},
      {{{"type", "squeeze_excitation"},
        {"squeeze_channels", 2},
        {"activation", "silu"},
        {"scale_activation", "hardsigmoid"}},
       {8, 3, 4},
       {8, 3, 4}},
      {{{"type", "stochastic_depth"}, {"p", 0.2}}, {8, 3, 3}, {8, 3, 3}},
      {{{"type", "stochastic_depth"}, {"p", 0.5}, {"mode", "batch"}}, {8, 3, 3}, {8, 3, 3}},
      {{{"type", "layernorm2d"}, {"eps", 1e-6}}, {6, 3, 4}, {6, 3, 4}},
      {{{"type", "channel_linear"}, {"out_features", 12}}, {6, 3, 4}, {12, 3, 4}},
      {{{"type", "layer_scale"}, {"init", 0.5}}, {6, 3, 4}, {6, 3, 4}},
      {{{"type", "maxpool2d"}, {"kernel_size", 2}}, {3, 9, 9}, {3, 4, 4}},
      {{{"type", "avgpool2d"}, {"kernel_size", 3}, {"stride", 2}, {"padding", 1}}, {2, 8, 8}, {2, 4, 4}},
      {{{"type", "adaptive_avgpool2d"}}, {5, 7, 7}, {5, 1, 1}},
      {{{"type", "adaptive_avgpool2d"}, {"output_size", {2, 3}}}, {5, 7, 7}, {5, 2, 3}},
      {{{"type", "flatten"}}, {3, 4, 5}, {60}},
      {{{"type", "linear"}, {"out_features", 7}}, {12}, {7}},
      {{{"type", "linear"}, {"out_features", 7}, {"bias", false}}, {5, 12}, {5, 7}},  // per token
      {{{"type", "dropout"}, {"p", 0.1}}, {3, 4}, {3, 4}},
      {{{"type", "identity"}}, {3, 4}, {3, 4}},
      {{{"type", "batchnorm1d"}}, {12}, {12}},
      {{{"type", "layernorm"}}, {5, 12}, {5, 12}},
      {{{"type", "layernorm"}, {"eps", 1e-6}}, {12}, {12}},
      {{{"type", "relu"}}, {6}, {6}},
      {{{"type", "gelu"}}, {2, 6}, {2, 6}},
      {{{"type", "tanh"}}, {1, 3, 3}, {1, 3, 3}},
      {{{"type", "sigmoid"}}, {6}, {6}},
      {{{"type", "hardswish"}}, {2, 3, 3}, {2, 3, 3}},
      {{{"type", "hardsigmoid"}}, {6}, {6}},
      {{{"type", "silu"}}, {2, 6}, {2, 6}},
      {{{"type", "residual"},
        {"layers",
         {{{"type", "conv2d"}, {"out_channels", 4}, {"kernel_size", 3}, {"padding", 1}},
          {{"type", "batchnorm2d"}}}}},
       {4, 6, 6},
       {4, 6, 6}},
      {{{"type", "residual"},
        {"layers",
         {{{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 3}, {"stride", 2}, {"padding", 1}}}},
        {"shortcut", {{{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 1}, {"stride", 2}}}}},
       {4, 7, 7},
       {8, 4, 4}},
      {{{"type", "patch_embed"}, {"patch_size", 4}, {"dim", 16}}, {3, 8, 12}, {6, 16}},
      {{{"type", "position_embedding"}}, {6, 16}, {7, 16}},
      {{{"type", "position_embedding"}, {"cls_token", false}}, {6, 16}, {6, 16}},
      {{{"type", "encoder_block"}, {"heads", 4}}, {7, 16}, {7, 16}},
      {{{"type", "encoder_block"}, {"heads", 2}, {"mlp_ratio", 1.5}, {"dropout", 0.1}}, {3, 8}, {3, 8}},
      {{{"type", "token_pool"}}, {7, 16}, {16}},
      {{{"type", "token_pool"}, {"mode", "mean"}}, {7, 16}, {16}},
  };
  return cases;
}

TEST(LayerTypes, EveryRegisteredTypeHasAShapeCase) {
  std::set<std::string> covered;
  for (const LayerCase& c : layerCases()) covered.insert(c.layer["type"].get<std::string>());
  for (const std::string& type : layerTypes()) EXPECT_TRUE(covered.count(type)) << type << " has no case";
  EXPECT_EQ(covered.size(), layerTypes().size());
}

TEST(LayerTypes, DescribedShapeMatchesTheDescriptionAndTheModule) {
  torch::manual_seed(0);
  for (const LayerCase& c : layerCases()) {
    SCOPED_TRACE(c.layer.dump() + " on " + shapeToString(c.input));
    const LayerPtr layer = parsed(c.layer);
    ASSERT_TRUE(layer);
    EXPECT_EQ(layer->outputShape(c.input), c.output);

    torch::nn::AnyModule module = layer->instantiate(c.input);
    module.ptr()->eval();
    Shape batch = {2};
    batch.insert(batch.end(), c.input.begin(), c.input.end());
    const torch::Tensor out = module.forward(torch::randn(batch));
    Shape expected = {2};
    expected.insert(expected.end(), c.output.begin(), c.output.end());
    EXPECT_EQ(out.sizes().vec(), expected);
  }
}

TEST(LayerTypes, DescribedParameterCountMatchesTheModule) {
  for (const LayerCase& c : layerCases()) {
    SCOPED_TRACE(c.layer.dump());
    const LayerPtr layer = parsed(c.layer);
    ASSERT_TRUE(layer);
    int64_t actual = 0;
    for (const torch::Tensor& p : layer->instantiate(c.input).ptr()->parameters()) actual += p.numel();
    EXPECT_EQ(layer->parameterCount(c.input), actual);
  }
}

TEST(LayerTypes, JsonRoundTripGivesTheSameLayerWithDefaultsFilledIn) {
  for (const LayerCase& c : layerCases()) {
    SCOPED_TRACE(c.layer.dump());
    const json described = parsed(c.layer)->toJson();
    for (const auto& [key, value] : c.layer.items()) {
      if (key == "layers" || key == "shortcut") continue;  // nested lists gain their own defaults
      EXPECT_EQ(described.at(key), value) << key;
    }
    EXPECT_EQ(parsed(described)->toJson(), described);
  }
  EXPECT_EQ(parsed({{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 3}})->toJson(),
            json({{"type", "conv2d"},
                  {"out_channels", 8},
                  {"kernel_size", 3},
                  {"stride", 1},
                  {"padding", 0},
                  {"bias", true},
                  {"groups", 1}}));
  EXPECT_EQ(parsed({{"type", "batchnorm2d"}})->toJson(),
            json({{"type", "batchnorm2d"}, {"eps", 1e-5}, {"momentum", 0.1}}));
  EXPECT_EQ(parsed({{"type", "squeeze_excitation"}, {"squeeze_channels", 4}})->toJson(),
            json({{"type", "squeeze_excitation"},
                  {"squeeze_channels", 4},
                  {"activation", "relu"},
                  {"scale_activation", "sigmoid"}}));
  EXPECT_EQ(parsed({{"type", "stochastic_depth"}})->toJson()["mode"], "row");
  EXPECT_EQ(parsed({{"type", "maxpool2d"}, {"kernel_size", 3}})->toJson()["stride"], 3);  // stride = kernel
  EXPECT_EQ(parsed({{"type", "dropout"}})->toJson()["p"], 0.5);
  EXPECT_EQ(parsed({{"type", "encoder_block"}, {"heads", 2}})->toJson()["mlp_ratio"], 4);
}

TEST(LayerTypes, FlopsFollowTheMultiplyAddFormulas) {
  // conv: 2 * C_out * H_out * W_out * C_in * k_h * k_w
  EXPECT_EQ(
      parsed({{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 3}})->flopsPerSample({3, 10, 12}),
      2 * 8 * 8 * 10 * 3 * 3 * 3);
  // linear: 2 * in * out per row; tokens are rows
  EXPECT_EQ(parsed({{"type", "linear"}, {"out_features", 7}})->flopsPerSample({12}), 2 * 12 * 7);
  EXPECT_EQ(parsed({{"type", "linear"}, {"out_features", 7}})->flopsPerSample({5, 12}), 5 * 2 * 12 * 7);
  // encoder block on N=7 tokens of D=16, hidden 64: qkv 2*N*D*3D, out 2*N*D*D, QK^T and AV 2*N*N*D each,
  // MLP 2*N*D*64 twice
  const int64_t n = 7, d = 16, hidden = 64;
  EXPECT_EQ(parsed({{"type", "encoder_block"}, {"heads", 4}})->flopsPerSample({n, d}),
            2 * n * d * 3 * d + 2 * n * d * d + 2 * (2 * n * n * d) + 2 * (2 * n * d * hidden));
  EXPECT_EQ(parsed({{"type", "patch_embed"}, {"patch_size", 4}, {"dim", 16}})->flopsPerSample({3, 8, 12}),
            2 * 6 * 16 * 3 * 4 * 4);
  EXPECT_EQ(parsed({{"type", "relu"}})->flopsPerSample({100}), 0);
}

TEST(LayerTypes, ParametersAreNamedAfterTheirPlaceInTheList) {
  const json layers = json::parse(R"([
    {"type": "conv2d", "out_channels": 4, "kernel_size": 3, "padding": 1, "bias": false},
    {"type": "relu"},
    {"type": "residual",
     "layers": [{"type": "conv2d", "out_channels": 4, "kernel_size": 3, "padding": 1},
                {"type": "batchnorm2d"}],
     "shortcut": [{"type": "batchnorm2d"}]},
    {"type": "flatten"},
    {"type": "linear", "out_features": 3}
  ])");
  ModelConfig config;
  config.layers = layers;
  const auto model = buildModel(config, {2, 5, 5}, 3);
  std::vector<std::string> names;
  for (const auto& [name, tensor] : model->namedParameters()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "layers.0.weight", "layers.2.layers.0.weight", "layers.2.layers.0.bias",
                       "layers.2.layers.1.weight", "layers.2.layers.1.bias", "layers.2.shortcut.0.weight",
                       "layers.2.shortcut.0.bias", "layers.4.weight", "layers.4.bias"}));
  std::set<std::string> buffers;
  for (const auto& [name, tensor] : model->namedBuffers()) buffers.insert(name);
  EXPECT_TRUE(buffers.count("layers.2.layers.1.running_mean"));
  EXPECT_TRUE(buffers.count("layers.2.shortcut.0.num_batches_tracked"));
}

}  // namespace
}  // namespace wb
