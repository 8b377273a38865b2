#include "model/layers/mobile_conv_layers.h"

#include "model/shape_rules.h"
#include "model/step_generator.h"
#include "util/default_cpu_generator.h"

namespace wb {
namespace {

template <typename E>
E wordChoice(LayerParams& params, const std::string& key) {
  const std::vector<std::string> words = allWords<E>();
  return *fromWord<E>(params.choice(key, words.front(), words));
}

}  // namespace

void addMobileConvLayerTypes(std::vector<LayerType>& types) {
  types.push_back({"squeeze_excitation", &SqueezeExcitationLayer::parse});
  types.push_back({"stochastic_depth", &StochasticDepthLayer::parse});
  types.push_back({"layernorm2d", &LayerNorm2dLayer::parse});
  types.push_back({"channel_linear", &ChannelLinearLayer::parse});
  types.push_back({"layer_scale", &LayerScaleLayer::parse});
}

// squeeze_excitation
// ------------------------------------------------------------------------------------------

LayerPtr SqueezeExcitationLayer::parse(LayerParams& params) {
  const int64_t squeeze = params.integer("squeeze_channels", std::nullopt, 1);
  const auto activation = wordChoice<SqueezeActivation>(params, "activation");
  const auto scale = wordChoice<ScaleActivation>(params, "scale_activation");
  if (!params.finish()) return nullptr;
  return std::make_shared<SqueezeExcitationLayer>(squeeze, activation, scale);
}

nlohmann::json SqueezeExcitationLayer::toJson() const {
  return {{"type", type()},
          {"squeeze_channels", m_squeezeChannels},
          {"activation", wordString(m_activation)},
          {"scale_activation", wordString(m_scale)}};
}

Shape SqueezeExcitationLayer::outputShape(const Shape& input) const {
  requireImage(input);
  return input;
}

int64_t SqueezeExcitationLayer::parameterCount(const Shape& input) const {
  return 2 * input[0] * m_squeezeChannels + m_squeezeChannels + input[0];
}

int64_t SqueezeExcitationLayer::flopsPerSample(const Shape& input) const {
  return 2 * (2 * input[0] * m_squeezeChannels);
}

torch::nn::AnyModule SqueezeExcitationLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(SqueezeExcitation(input[0], m_squeezeChannels, m_activation, m_scale));
}

SqueezeExcitationImpl::SqueezeExcitationImpl(int64_t channels, int64_t squeeze, SqueezeActivation activation,
                                             ScaleActivation scale)
    : m_fc1(register_module("fc1", torch::nn::Conv2d(torch::nn::Conv2dOptions(channels, squeeze, 1)))),
      m_fc2(register_module("fc2", torch::nn::Conv2d(torch::nn::Conv2dOptions(squeeze, channels, 1)))),
      m_activation(activation),
      m_scale(scale) {}

torch::Tensor SqueezeExcitationImpl::forward(const torch::Tensor& x) {
  torch::Tensor s = m_fc1->forward(torch::adaptive_avg_pool2d(x, {1, 1}));
  s = m_activation == SqueezeActivation::Relu ? torch::relu(s) : torch::silu(s);
  s = m_fc2->forward(s);
  s = m_scale == ScaleActivation::Sigmoid ? torch::sigmoid(s) : torch::hardsigmoid(s);
  return s * x;
}

// stochastic_depth
// --------------------------------------------------------------------------------------------

LayerPtr StochasticDepthLayer::parse(LayerParams& params) {
  const double p = params.number("p", 0.0, 0.0, 1.0);
  const auto mode = wordChoice<StochasticDepthMode>(params, "mode");
  if (!params.finish()) return nullptr;
  return std::make_shared<StochasticDepthLayer>(p, mode);
}

nlohmann::json StochasticDepthLayer::toJson() const {
  return {{"type", type()}, {"p", m_p}, {"mode", wordString(m_mode)}};
}

torch::nn::AnyModule StochasticDepthLayer::instantiate(const Shape&) const {
  return torch::nn::AnyModule(StochasticDepth(m_p, m_mode));
}

torch::Tensor StochasticDepthImpl::forward(const torch::Tensor& x) {
  // torchvision.ops.stochastic_depth step by step, so the same generator state drops the same rows.
  if (!is_training() || m_p == 0.0) return x;
  std::vector<int64_t> size(static_cast<size_t>(x.dim()), 1);
  if (m_mode == StochasticDepthMode::Row) size[0] = x.size(0);
  const double survival = 1.0 - m_p;
  torch::Tensor noise = torch::empty(size, x.options());
  torch::Generator* generator = stepGenerator();
  if (generator != nullptr && x.device().is_cpu()) {
    noise.bernoulli_(survival, *generator);
  } else {
    const auto turn = holdDefaultGenerator(noise.device());
    noise.bernoulli_(survival);
  }
  if (survival > 0.0) noise.div_(survival);
  return x * noise;
}

// layernorm2d
// -------------------------------------------------------------------------------------------------

LayerPtr LayerNorm2dLayer::parse(LayerParams& params) {
  const double eps = params.number("eps", kDefaultEps, 1e-12, 1.0);
  if (!params.finish()) return nullptr;
  return std::make_shared<LayerNorm2dLayer>(eps);
}

Shape LayerNorm2dLayer::outputShape(const Shape& input) const {
  requireImage(input);
  return input;
}

torch::nn::AnyModule LayerNorm2dLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(LayerNorm2d(input[0], m_eps));
}

LayerNorm2dImpl::LayerNorm2dImpl(int64_t channels, double eps)
    : m_weight(register_parameter("weight", torch::ones({channels}))),
      m_bias(register_parameter("bias", torch::zeros({channels}))),
      m_eps(eps) {}

torch::Tensor LayerNorm2dImpl::forward(const torch::Tensor& x) {
  // torchvision's LayerNorm2d: channels last, nn.LayerNorm over them, channels first again.
  const torch::Tensor last = x.permute({0, 2, 3, 1});
  return torch::layer_norm(last, {m_weight.size(0)}, m_weight, m_bias, m_eps).permute({0, 3, 1, 2});
}

// channel_linear
// ----------------------------------------------------------------------------------------------

LayerPtr ChannelLinearLayer::parse(LayerParams& params) {
  const int64_t outFeatures = params.integer("out_features", std::nullopt, 1);
  const bool bias = params.flag("bias", true);
  if (!params.finish()) return nullptr;
  return std::make_shared<ChannelLinearLayer>(outFeatures, bias);
}

nlohmann::json ChannelLinearLayer::toJson() const {
  return {{"type", type()}, {"out_features", m_outFeatures}, {"bias", m_bias}};
}

Shape ChannelLinearLayer::outputShape(const Shape& input) const {
  requireImage(input);
  return {m_outFeatures, input[1], input[2]};
}

int64_t ChannelLinearLayer::parameterCount(const Shape& input) const {
  return input[0] * m_outFeatures + (m_bias ? m_outFeatures : 0);
}

int64_t ChannelLinearLayer::flopsPerSample(const Shape& input) const {
  return 2 * input[1] * input[2] * input[0] * m_outFeatures;  // one matrix-vector product per pixel
}

torch::nn::AnyModule ChannelLinearLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(ChannelLinear(input[0], m_outFeatures, m_bias));
}

ChannelLinearImpl::ChannelLinearImpl(int64_t in, int64_t out, bool bias) {
  // nn.Linear's initialization, its tensors kept as this module's own weight and bias: the names nn.Linear
  // has.
  const torch::nn::Linear init(torch::nn::LinearOptions(in, out).bias(bias));
  m_weight = register_parameter("weight", init->weight.detach().clone());
  if (bias) m_bias = register_parameter("bias", init->bias.detach().clone());
}

torch::Tensor ChannelLinearImpl::forward(const torch::Tensor& x) {
  return torch::linear(x.permute({0, 2, 3, 1}), m_weight, m_bias).permute({0, 3, 1, 2});
}

// layer_scale
// -------------------------------------------------------------------------------------------------

LayerPtr LayerScaleLayer::parse(LayerParams& params) {
  const double init = params.number("init", 1e-6, -1e6, 1e6);
  if (!params.finish()) return nullptr;
  return std::make_shared<LayerScaleLayer>(init);
}

Shape LayerScaleLayer::outputShape(const Shape& input) const {
  requireImage(input);
  return input;
}

torch::nn::AnyModule LayerScaleLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(LayerScale(input[0], m_init));
}

LayerScaleImpl::LayerScaleImpl(int64_t channels, double init)
    : m_scale(register_parameter("layer_scale", torch::full({channels, 1, 1}, init))) {}

}  // namespace wb
