#pragma once
// The pieces torchvision's mobile and modern CNNs are made of beyond conv / batch norm / pooling:
//   squeeze_excitation  torchvision.ops.SqueezeExcitation (MobileNetV3, EfficientNet): channel weights from a
//                       pooled 1x1-conv bottleneck, multiplied into the image
//   stochastic_depth    torchvision.ops.StochasticDepth: drops a residual branch per sample in training
//   layernorm2d         ConvNeXt's LayerNorm2d: layer norm over the channels of each pixel
//   channel_linear      ConvNeXt's Permute + nn.Linear + Permute: a linear map of each pixel's channels, with
//                       nn.Linear's [out, in] weight (not a 1x1 conv's [out, in, 1, 1]), so its tensors have
//                       torchvision's shapes
//   layer_scale         ConvNeXt's per-channel learned scale ([C, 1, 1], initialized to a small constant)
// Parameter names follow torchvision's modules (fc1, fc2; weight, bias; layer_scale).

#include <vector>

#include "model/layer.h"
#include "model/layer_params.h"
#include "model/layer_registry.h"
#include "workbench/word_set.h"

namespace wb {

void addMobileConvLayerTypes(std::vector<LayerType>& types);

// The squeeze-excitation's two activations: torchvision's defaults are ReLU and Sigmoid; MobileNetV3 scales
// with Hardsigmoid, EfficientNet squeezes with SiLU.
enum class SqueezeActivation { Relu, Silu };
enum class ScaleActivation { Sigmoid, Hardsigmoid };
template <>
struct Words<SqueezeActivation> {
  static constexpr std::array<Word<SqueezeActivation>, 2> table = {
      {{SqueezeActivation::Relu, "relu"}, {SqueezeActivation::Silu, "silu"}}};
};
template <>
struct Words<ScaleActivation> {
  static constexpr std::array<Word<ScaleActivation>, 2> table = {
      {{ScaleActivation::Sigmoid, "sigmoid"}, {ScaleActivation::Hardsigmoid, "hardsigmoid"}}};
};

// image [C, H, W] -> same: x * scale_activation(fc2(activation(fc1(mean over H, W of x)))), fc1 and fc2 1x1
// convs with bias (C -> squeeze_channels -> C).
class SqueezeExcitationLayer : public Layer {
 public:
  SqueezeExcitationLayer(int64_t squeezeChannels, SqueezeActivation activation, ScaleActivation scale)
      : m_squeezeChannels(squeezeChannels), m_activation(activation), m_scale(scale) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "squeeze_excitation"; }
  nlohmann::json toJson() const override;
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override;
  int64_t flopsPerSample(const Shape& input) const override;  // the two 1x1 convs on the pooled pixel
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  int64_t squeezeChannels() const { return m_squeezeChannels; }
  SqueezeActivation activation() const { return m_activation; }
  ScaleActivation scaleActivation() const { return m_scale; }

 private:
  int64_t m_squeezeChannels;
  SqueezeActivation m_activation;
  ScaleActivation m_scale;
};

// "row": each sample's input is zeroed with probability p (else scaled by 1 / (1 - p)); "batch": the whole
// batch at once. The identity in eval mode. Put it last in a residual's layers, where torchvision applies it.
enum class StochasticDepthMode { Row, Batch };
template <>
struct Words<StochasticDepthMode> {
  static constexpr std::array<Word<StochasticDepthMode>, 2> table = {
      {{StochasticDepthMode::Row, "row"}, {StochasticDepthMode::Batch, "batch"}}};
};

class StochasticDepthLayer : public Layer {
 public:
  StochasticDepthLayer(double p, StochasticDepthMode mode) : m_p(p), m_mode(mode) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "stochastic_depth"; }
  nlohmann::json toJson() const override;
  Shape outputShape(const Shape& input) const override { return input; }
  int64_t parameterCount(const Shape&) const override { return 0; }
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  double p() const { return m_p; }
  StochasticDepthMode mode() const { return m_mode; }

 private:
  double m_p;
  StochasticDepthMode m_mode;
};

// image -> same: each pixel's C channels normalized (mean 0, variance 1, then weight and bias per channel).
class LayerNorm2dLayer : public Layer {
 public:
  static constexpr double kDefaultEps = 1e-5;  // nn.LayerNorm's; ConvNeXt sets 1e-6
  explicit LayerNorm2dLayer(double eps) : m_eps(eps) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "layernorm2d"; }
  nlohmann::json toJson() const override { return {{"type", type()}, {"eps", m_eps}}; }
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override { return 2 * input[0]; }
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  double eps() const { return m_eps; }

 private:
  double m_eps;
};

// image [C, H, W] -> [out_features, H, W]: nn.Linear on each pixel's channels.
class ChannelLinearLayer : public Layer {
 public:
  ChannelLinearLayer(int64_t outFeatures, bool bias) : m_outFeatures(outFeatures), m_bias(bias) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "channel_linear"; }
  nlohmann::json toJson() const override;
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override;
  int64_t flopsPerSample(const Shape& input) const override;
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  int64_t outFeatures() const { return m_outFeatures; }
  bool bias() const { return m_bias; }

 private:
  int64_t m_outFeatures;
  bool m_bias;
};

// image -> same: x * layer_scale, a learned [C, 1, 1] parameter starting at `init` everywhere.
class LayerScaleLayer : public Layer {
 public:
  explicit LayerScaleLayer(double init) : m_init(init) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "layer_scale"; }
  nlohmann::json toJson() const override { return {{"type", type()}, {"init", m_init}}; }
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override { return input[0]; }
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  double init() const { return m_init; }

 private:
  double m_init;
};

// Modules
// ----------------------------------------------------------------------------------------------------

class SqueezeExcitationImpl : public torch::nn::Module {
 public:
  SqueezeExcitationImpl(int64_t channels, int64_t squeeze, SqueezeActivation activation,
                        ScaleActivation scale);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::nn::Conv2d m_fc1;
  torch::nn::Conv2d m_fc2;
  SqueezeActivation m_activation;
  ScaleActivation m_scale;
};
TORCH_MODULE(SqueezeExcitation);

// Training on a CPU input with a step generator set (step_generator.h) draws its mask from it, as the dropout
// layer does; otherwise from torch's default generator, as torchvision does.
class StochasticDepthImpl : public torch::nn::Module {
 public:
  StochasticDepthImpl(double p, StochasticDepthMode mode) : m_p(p), m_mode(mode) {}
  torch::Tensor forward(const torch::Tensor& x);

 private:
  double m_p;
  StochasticDepthMode m_mode;
};
TORCH_MODULE(StochasticDepth);

class LayerNorm2dImpl : public torch::nn::Module {
 public:
  LayerNorm2dImpl(int64_t channels, double eps);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::Tensor m_weight;
  torch::Tensor m_bias;
  double m_eps;
};
TORCH_MODULE(LayerNorm2d);

class ChannelLinearImpl : public torch::nn::Module {
 public:
  ChannelLinearImpl(int64_t in, int64_t out, bool bias);
  torch::Tensor forward(const torch::Tensor& x);

 private:
  torch::Tensor m_weight;
  torch::Tensor m_bias;  // undefined without a bias
};
TORCH_MODULE(ChannelLinear);

class LayerScaleImpl : public torch::nn::Module {
 public:
  LayerScaleImpl(int64_t channels, double init);
  torch::Tensor forward(const torch::Tensor& x) { return x * m_scale; }

 private:
  torch::Tensor m_scale;
};
TORCH_MODULE(LayerScale);

}  // namespace wb
