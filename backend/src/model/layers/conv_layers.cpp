#include "model/layers/conv_layers.h"

#include "model/layers/mobile_conv_layers.h"
#include "model/layers/sync_batch_norm.h"
#include "model/model_build_context.h"
#include "model/shape_rules.h"

namespace wb {
namespace {

torch::ExpandingArray<2> expanding(Size2 size) {
  return torch::ExpandingArray<2>({size.h, size.w});
}

// torch refuses pooling padding above half the window; say so while reading the parameters.
void checkPoolPadding(LayerParams& params, Size2 kernel, Size2 padding) {
  if (2 * padding.h > kernel.h || 2 * padding.w > kernel.w) {
    params.reportInvalid("padding", "must be at most half of kernel_size (" + kernel.toJson().dump() +
                                        "), got " + padding.toJson().dump());
  }
}

}  // namespace

void addConvLayerTypes(std::vector<LayerType>& types) {
  types.push_back({"conv2d", &Conv2dLayer::parse});
  types.push_back({"batchnorm2d", &BatchNorm2dLayer::parse});
  types.push_back(
      {"maxpool2d", [](LayerParams& p) { return Pool2dLayer::parse(Pool2dLayer::Kind::Max, p); }});
  types.push_back(
      {"avgpool2d", [](LayerParams& p) { return Pool2dLayer::parse(Pool2dLayer::Kind::Average, p); }});
  types.push_back({"adaptive_avgpool2d", &AdaptiveAvgPool2dLayer::parse});
  addMobileConvLayerTypes(types);  // the image layers of MobileNet, EfficientNet and ConvNeXt come next
}

// conv2d
// ------------------------------------------------------------------------------------------------------

Conv2dLayer::Conv2dLayer(int64_t outChannels, Size2 kernel, Size2 stride, Size2 padding, bool bias,
                         int64_t groups)
    : m_outChannels(outChannels),
      m_kernel(kernel),
      m_stride(stride),
      m_padding(padding),
      m_bias(bias),
      m_groups(groups) {}

LayerPtr Conv2dLayer::parse(LayerParams& params) {
  const int64_t outChannels = params.integer("out_channels", std::nullopt, 1);
  const Size2 kernel = params.size2("kernel_size", std::nullopt, 1);
  const Size2 stride = params.size2("stride", Size2{1, 1}, 1);
  const Size2 padding = params.size2("padding", Size2{0, 0}, 0);
  const bool bias = params.flag("bias", true);
  const int64_t groups = params.integer("groups", 1, 1);
  if (groups > 1 && outChannels % groups != 0) {
    params.reportInvalid("groups", "must divide out_channels (" + std::to_string(outChannels) + "), got " +
                                       std::to_string(groups));
  }
  if (!params.finish()) return nullptr;
  return std::make_shared<Conv2dLayer>(outChannels, kernel, stride, padding, bias, groups);
}

nlohmann::json Conv2dLayer::toJson() const {
  return {{"type", type()},
          {"out_channels", m_outChannels},
          {"kernel_size", m_kernel.toJson()},
          {"stride", m_stride.toJson()},
          {"padding", m_padding.toJson()},
          {"bias", m_bias},
          {"groups", m_groups}};
}

Shape Conv2dLayer::outputShape(const Shape& input) const {
  requireImage(input);
  if (input[0] % m_groups != 0) {
    throw ShapeError("has groups " + std::to_string(m_groups) + ", which must divide its " +
                     std::to_string(input[0]) + " input channels (input " + shapeToString(input) + ")");
  }
  return {m_outChannels, slidingOutput(input[1], m_kernel.h, m_stride.h, m_padding.h, "height"),
          slidingOutput(input[2], m_kernel.w, m_stride.w, m_padding.w, "width")};
}

int64_t Conv2dLayer::parameterCount(const Shape& input) const {
  return m_outChannels * (input[0] / m_groups) * m_kernel.h * m_kernel.w + (m_bias ? m_outChannels : 0);
}

int64_t Conv2dLayer::flopsPerSample(const Shape& input) const {
  // Every output element is a dot product over (in_channels / groups) x kernel_h x kernel_w inputs.
  return 2 * elementCount(outputShape(input)) * (input[0] / m_groups) * m_kernel.h * m_kernel.w;
}

torch::nn::AnyModule Conv2dLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(
      torch::nn::Conv2d(torch::nn::Conv2dOptions(input[0], m_outChannels, expanding(m_kernel))
                            .stride(expanding(m_stride))
                            .padding(expanding(m_padding))
                            .bias(m_bias)
                            .groups(m_groups)));
}

// batchnorm2d
// -------------------------------------------------------------------------------------------------

LayerPtr BatchNorm2dLayer::parse(LayerParams& params) {
  const double eps = params.number("eps", kDefaultEps, 1e-12, 1.0);
  const double momentum = params.number("momentum", kDefaultMomentum, 0.0, 1.0);
  if (!params.finish()) return nullptr;
  return std::make_shared<BatchNorm2dLayer>(eps, momentum);
}

Shape BatchNorm2dLayer::outputShape(const Shape& input) const {
  requireImage(input);
  return input;
}

int64_t BatchNorm2dLayer::parameterCount(const Shape& input) const {
  return 2 * input[0];
}

torch::nn::AnyModule BatchNorm2dLayer::instantiate(const Shape& input) const {
  if (RankGroup* group = syncBatchNormGroup()) {
    SyncBatchNorm2d sync(input[0], *group);
    sync->options.eps(m_eps).momentum(m_momentum);
    return torch::nn::AnyModule(sync);
  }
  return torch::nn::AnyModule(
      torch::nn::BatchNorm2d(torch::nn::BatchNormOptions(input[0]).eps(m_eps).momentum(m_momentum)));
}

// maxpool2d, avgpool2d
// ----------------------------------------------------------------------------------------

Pool2dLayer::Pool2dLayer(Kind kind, Size2 kernel, Size2 stride, Size2 padding)
    : m_kind(kind), m_kernel(kernel), m_stride(stride), m_padding(padding) {}

LayerPtr Pool2dLayer::parse(Kind kind, LayerParams& params) {
  const Size2 kernel = params.size2("kernel_size", std::nullopt, 1);
  const Size2 stride = params.size2("stride", kernel, 1);  // PyTorch's default: stride = kernel_size
  const Size2 padding = params.size2("padding", Size2{0, 0}, 0);
  checkPoolPadding(params, kernel, padding);
  if (!params.finish()) return nullptr;
  return std::make_shared<Pool2dLayer>(kind, kernel, stride, padding);
}

nlohmann::json Pool2dLayer::toJson() const {
  return {{"type", type()},
          {"kernel_size", m_kernel.toJson()},
          {"stride", m_stride.toJson()},
          {"padding", m_padding.toJson()}};
}

Shape Pool2dLayer::outputShape(const Shape& input) const {
  requireImage(input);
  return {input[0], slidingOutput(input[1], m_kernel.h, m_stride.h, m_padding.h, "height"),
          slidingOutput(input[2], m_kernel.w, m_stride.w, m_padding.w, "width")};
}

torch::nn::AnyModule Pool2dLayer::instantiate(const Shape&) const {
  if (m_kind == Kind::Max) {
    return torch::nn::AnyModule(torch::nn::MaxPool2d(torch::nn::MaxPool2dOptions(expanding(m_kernel))
                                                         .stride(expanding(m_stride))
                                                         .padding(expanding(m_padding))));
  }
  return torch::nn::AnyModule(torch::nn::AvgPool2d(torch::nn::AvgPool2dOptions(expanding(m_kernel))
                                                       .stride(expanding(m_stride))
                                                       .padding(expanding(m_padding))));
}

// adaptive_avgpool2d
// ------------------------------------------------------------------------------------------

LayerPtr AdaptiveAvgPool2dLayer::parse(LayerParams& params) {
  const Size2 outputSize = params.size2("output_size", Size2{1, 1}, 1);
  if (!params.finish()) return nullptr;
  return std::make_shared<AdaptiveAvgPool2dLayer>(outputSize);
}

Shape AdaptiveAvgPool2dLayer::outputShape(const Shape& input) const {
  requireImage(input);
  return {input[0], m_outputSize.h, m_outputSize.w};
}

torch::nn::AnyModule AdaptiveAvgPool2dLayer::instantiate(const Shape&) const {
  return torch::nn::AnyModule(torch::nn::AdaptiveAvgPool2d(torch::nn::AdaptiveAvgPool2dOptions(
      torch::ExpandingArrayWithOptionalElem<2>({m_outputSize.h, m_outputSize.w}))));
}

}  // namespace wb
