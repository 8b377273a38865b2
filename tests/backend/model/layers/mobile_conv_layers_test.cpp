// The layers MobileNetV3, EfficientNet and ConvNeXt add (grouped convs, batch-norm eps, hardswish /
// hardsigmoid / silu, squeeze_excitation, stochastic_depth, layernorm2d, channel_linear, layer_scale) compute
// what torchvision's modules compute, written out here with plain torch functions.

#include <gtest/gtest.h>

#include "model/layer_registry.h"
#include "model/model.h"
#include "model/step_generator.h"

namespace wb {
namespace {

using nlohmann::json;

LayerPtr parsedLayer(const json& layer) {
  std::vector<ValidationIssue> issues;
  LayerPtr result = parseLayer(layer, "model.layers[0]", issues);
  for (const ValidationIssue& issue : issues) ADD_FAILURE() << issue.path << ": " << issue.message;
  return result;
}

std::vector<ValidationIssue> issuesOf(const json& layer) {
  std::vector<ValidationIssue> issues;
  parseLayer(layer, "model.layers[0]", issues);
  return issues;
}

// The layer's module on `input`, its parameters drawn at random so a wrong name or shape would show.
struct Built {
  torch::nn::AnyModule module;
  std::map<std::string, torch::Tensor> params;
};

Built built(const json& layer, const Shape& shape) {
  Built b{parsedLayer(layer)->instantiate(shape), {}};
  torch::NoGradGuard no_grad;
  for (auto& item : b.module.ptr()->named_parameters()) {
    item.value().normal_();
    b.params[item.key()] = item.value();
  }
  b.module.ptr()->eval();
  return b;
}

TEST(MobileConvLayers, GroupedConvCountsParametersAndFlopsPerGroup) {
  const LayerPtr dw = parsedLayer({{"type", "conv2d"},
                                   {"out_channels", 6},
                                   {"kernel_size", 3},
                                   {"padding", 1},
                                   {"groups", 6},
                                   {"bias", false}});
  EXPECT_EQ(dw->parameterCount({6, 5, 5}), 6 * 1 * 3 * 3);
  EXPECT_EQ(dw->flopsPerSample({6, 5, 5}), 2 * 6 * 5 * 5 * 1 * 3 * 3);
  torch::manual_seed(1);
  Built b = built(dw->toJson(), {6, 5, 5});
  const torch::Tensor x = torch::randn({2, 6, 5, 5});
  const torch::Tensor expected = torch::conv2d(x, b.params.at("weight"), {}, 1, 1, 1, 6);
  EXPECT_TRUE(torch::allclose(b.module.forward(x), expected));
}

TEST(MobileConvLayers, GroupsThatDoNotDivideTheChannelsAreRefusedNamingThem) {
  const std::vector<ValidationIssue> issues =
      issuesOf({{"type", "conv2d"}, {"out_channels", 6}, {"kernel_size", 3}, {"groups", 4}});
  ASSERT_EQ(issues.size(), 1U);
  EXPECT_EQ(issues[0].path, "model.layers[0].groups");
  EXPECT_NE(issues[0].message.find("must divide out_channels (6)"), std::string::npos) << issues[0].message;
  const LayerPtr conv =
      parsedLayer({{"type", "conv2d"}, {"out_channels", 6}, {"kernel_size", 1}, {"groups", 3}});
  try {
    conv->outputShape({4, 5, 5});
    ADD_FAILURE() << "4 input channels in 3 groups were accepted";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("must divide its 4 input channels"), std::string::npos) << e.what();
  }
}

TEST(MobileConvLayers, BatchNormUsesItsEpsAndMomentum) {
  torch::manual_seed(2);
  Built b = built({{"type", "batchnorm2d"}, {"eps", 0.5}, {"momentum", 0.25}}, {3, 4, 4});
  const torch::Tensor x = torch::randn({2, 3, 4, 4}) * 0.1;
  // eval: running statistics 0 and 1, so (x - 0) / sqrt(1 + eps) * weight + bias
  const torch::Tensor expected =
      x / std::sqrt(1.5) * b.params.at("weight").view({1, 3, 1, 1}) + b.params.at("bias").view({1, 3, 1, 1});
  EXPECT_TRUE(torch::allclose(b.module.forward(x), expected, 1e-5, 1e-6));
  b.module.ptr()->train();
  b.module.forward(x);
  torch::Tensor mean;
  for (const auto& item : b.module.ptr()->named_buffers()) {
    if (item.key() == "running_mean") mean = item.value();
  }
  EXPECT_TRUE(torch::allclose(mean, 0.25 * x.mean({0, 2, 3})));  // momentum 0.25 from 0
}

TEST(MobileConvLayers, HardActivationsAndSiluFollowTheirFormulas) {
  const torch::Tensor x = torch::tensor({-4.0F, -3.0F, -1.0F, 0.0F, 1.0F, 3.0F, 5.0F});
  const torch::Tensor relu6 = torch::clamp(x + 3, 0, 6);
  EXPECT_TRUE(torch::allclose(built({{"type", "hardswish"}}, {7}).module.forward(x), x * relu6 / 6));
  EXPECT_TRUE(torch::allclose(built({{"type", "hardsigmoid"}}, {7}).module.forward(x), relu6 / 6));
  EXPECT_TRUE(torch::allclose(built({{"type", "silu"}}, {7}).module.forward(x), x * torch::sigmoid(x)));
}

TEST(MobileConvLayers, SqueezeExcitationScalesEachChannelByItsPooledBottleneck) {
  torch::manual_seed(3);
  for (const bool mobilenet : {true, false}) {
    SCOPED_TRACE(mobilenet ? "relu + hardsigmoid" : "silu + sigmoid");
    const json layer = {{"type", "squeeze_excitation"},
                        {"squeeze_channels", 3},
                        {"activation", mobilenet ? "relu" : "silu"},
                        {"scale_activation", mobilenet ? "hardsigmoid" : "sigmoid"}};
    Built b = built(layer, {8, 5, 4});
    EXPECT_EQ(b.params.at("fc1.weight").sizes().vec(), (std::vector<int64_t>{3, 8, 1, 1}));
    EXPECT_EQ(b.params.at("fc2.weight").sizes().vec(), (std::vector<int64_t>{8, 3, 1, 1}));
    EXPECT_EQ(b.params.size(), 4U);
    const torch::Tensor x = torch::randn({2, 8, 5, 4});
    torch::Tensor s = torch::conv2d(x.mean({2, 3}, true), b.params.at("fc1.weight"), b.params.at("fc1.bias"));
    s = mobilenet ? torch::relu(s) : s * torch::sigmoid(s);
    s = torch::conv2d(s, b.params.at("fc2.weight"), b.params.at("fc2.bias"));
    s = mobilenet ? torch::clamp(s + 3, 0, 6) / 6 : torch::sigmoid(s);
    EXPECT_TRUE(torch::allclose(b.module.forward(x), x * s, 1e-5, 1e-6));
  }
  const std::vector<ValidationIssue> issues =
      issuesOf({{"type", "squeeze_excitation"}, {"squeeze_channels", 3}, {"scale_activation", "hardsigmod"}});
  ASSERT_EQ(issues.size(), 1U);
  EXPECT_EQ(issues[0].path, "model.layers[0].scale_activation");
  EXPECT_NE(issues[0].message.find("hardsigmoid"), std::string::npos) << issues[0].message;
}

TEST(MobileConvLayers, StochasticDepthDropsWholeSamplesInTrainingOnly) {
  Built b = built({{"type", "stochastic_depth"}, {"p", 0.5}}, {3, 2, 2});
  const torch::Tensor x = torch::ones({64, 3, 2, 2});
  EXPECT_TRUE(torch::equal(b.module.forward(x), x));  // eval: the identity
  b.module.ptr()->train();
  const torch::Tensor y = b.module.forward(x);
  const torch::Tensor perSample = y.flatten(1);
  // Each sample is all 0 or all 1 / (1 - p) = 2; with 64 samples both occur.
  EXPECT_TRUE(torch::equal(perSample.amin(1), perSample.amax(1)));
  EXPECT_TRUE(torch::logical_or(perSample.amin(1) == 0, perSample.amin(1) == 2).all().item<bool>());
  EXPECT_GT((perSample.amin(1) == 0).sum().item<int64_t>(), 0);
  EXPECT_GT((perSample.amin(1) == 2).sum().item<int64_t>(), 0);

  // With a step generator the mask is the generator's: the same seed gives the same rows.
  auto masked = [&](uint64_t seed) {
    torch::Generator generator = torch::make_generator<at::CPUGeneratorImpl>(seed);
    StepGeneratorScope scope(generator);
    return b.module.forward(x);
  };
  EXPECT_TRUE(torch::equal(masked(7), masked(7)));
  EXPECT_FALSE(torch::equal(masked(7), masked(8)));

  Built batch = built({{"type", "stochastic_depth"}, {"p", 0.5}, {"mode", "batch"}}, {3, 2, 2});
  batch.module.ptr()->train();
  const torch::Tensor whole = batch.module.forward(x);
  EXPECT_EQ(whole.amin().item<float>(), whole.amax().item<float>());  // the batch at once
}

TEST(MobileConvLayers, LayerNorm2dNormalizesEachPixelsChannels) {
  torch::manual_seed(4);
  Built b = built({{"type", "layernorm2d"}, {"eps", 1e-6}}, {6, 3, 4});
  const torch::Tensor x = torch::randn({2, 6, 3, 4});
  const torch::Tensor mean = x.mean({1}, true);
  const torch::Tensor var = x.var({1}, /*unbiased=*/false, true);
  const torch::Tensor expected =
      (x - mean) / torch::sqrt(var + 1e-6) * b.params.at("weight").view({1, 6, 1, 1}) +
      b.params.at("bias").view({1, 6, 1, 1});
  EXPECT_TRUE(torch::allclose(b.module.forward(x), expected, 1e-4, 1e-5));
}

TEST(MobileConvLayers, ChannelLinearIsALinearMapOfEachPixelWithLinearsShapes) {
  torch::manual_seed(5);
  Built b = built({{"type", "channel_linear"}, {"out_features", 10}}, {6, 3, 4});
  EXPECT_EQ(b.params.at("weight").sizes().vec(), (std::vector<int64_t>{10, 6}));  // nn.Linear's, not a conv's
  EXPECT_EQ(b.params.at("bias").sizes().vec(), (std::vector<int64_t>{10}));
  const torch::Tensor x = torch::randn({2, 6, 3, 4});
  const torch::Tensor expected =
      torch::conv2d(x, b.params.at("weight").view({10, 6, 1, 1}), b.params.at("bias"));
  EXPECT_TRUE(torch::allclose(b.module.forward(x), expected, 1e-5, 1e-5));
  EXPECT_EQ(parsedLayer({{"type", "channel_linear"}, {"out_features", 10}})->flopsPerSample({6, 3, 4}),
            2 * 3 * 4 * 6 * 10);
}

TEST(MobileConvLayers, LayerScaleMultipliesEachChannelByItsLearnedScale) {
  Built fresh{parsedLayer({{"type", "layer_scale"}})->instantiate({4, 2, 2}), {}};
  const torch::Tensor scale = fresh.module.ptr()->named_parameters()["layer_scale"];
  EXPECT_EQ(scale.sizes().vec(), (std::vector<int64_t>{4, 1, 1}));
  EXPECT_TRUE(torch::equal(scale, torch::full({4, 1, 1}, 1e-6)));  // torchvision's ConvNeXt start
  torch::manual_seed(6);
  Built b = built({{"type", "layer_scale"}}, {4, 2, 2});
  const torch::Tensor x = torch::randn({2, 4, 2, 2});
  EXPECT_TRUE(torch::allclose(b.module.forward(x), x * b.params.at("layer_scale")));
}

}  // namespace
}  // namespace wb
