#pragma once
// Image layers: [C, H, W] in, [C', H', W'] out — conv2d, batchnorm2d, maxpool2d, avgpool2d,
// adaptive_avgpool2d. Input channels always come from the previous layer's output, so a pass that prunes a
// conv's out_channels only edits that conv; the layers after it follow.

#include <vector>

#include "model/layer.h"
#include "model/layer_params.h"
#include "model/layer_registry.h"

namespace wb {

void addConvLayerTypes(std::vector<LayerType>& types);

class Conv2dLayer : public Layer {
 public:
  // `groups` splits input and output channels into that many independent convolutions, as nn.Conv2d's
  // groups; groups = in_channels = out_channels is a depthwise conv (MobileNet, EfficientNet, ConvNeXt).
  Conv2dLayer(int64_t outChannels, Size2 kernel, Size2 stride, Size2 padding, bool bias, int64_t groups = 1);
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "conv2d"; }
  nlohmann::json toJson() const override;
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override;
  int64_t flopsPerSample(const Shape& input) const override;
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  int64_t outChannels() const { return m_outChannels; }
  Size2 kernel() const { return m_kernel; }
  Size2 stride() const { return m_stride; }
  Size2 padding() const { return m_padding; }
  bool bias() const { return m_bias; }
  int64_t groups() const { return m_groups; }

 private:
  int64_t m_outChannels;
  Size2 m_kernel;
  Size2 m_stride;
  Size2 m_padding;
  bool m_bias;
  int64_t m_groups;
};

// Batch norm per channel; over the global batch of a data-parallel run while a SyncBatchNormScope names its
// ranks (sync_batch_norm.h). eps and momentum as nn.BatchNorm2d's (torchvision's MobileNetV3 and
// EfficientNet use eps 1e-3, MobileNetV3 momentum 0.01); every pass that computes a batch norm reads them
// here.
class BatchNorm2dLayer : public Layer {
 public:
  static constexpr double kDefaultEps = 1e-5;
  static constexpr double kDefaultMomentum = 0.1;
  explicit BatchNorm2dLayer(double eps = kDefaultEps, double momentum = kDefaultMomentum)
      : m_eps(eps), m_momentum(momentum) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "batchnorm2d"; }
  nlohmann::json toJson() const override {
    return {{"type", type()}, {"eps", m_eps}, {"momentum", m_momentum}};
  }
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override;  // weight and bias per channel
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  double eps() const { return m_eps; }
  double momentum() const { return m_momentum; }

 private:
  double m_eps;
  double m_momentum;
};

// maxpool2d and avgpool2d: the same window arithmetic, a different reduction.
class Pool2dLayer : public Layer {
 public:
  enum class Kind { Max, Average };
  Pool2dLayer(Kind kind, Size2 kernel, Size2 stride, Size2 padding);
  static LayerPtr parse(Kind kind, LayerParams& params);

  std::string type() const override { return m_kind == Kind::Max ? "maxpool2d" : "avgpool2d"; }
  nlohmann::json toJson() const override;
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape&) const override { return 0; }
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  Kind kind() const { return m_kind; }
  Size2 kernel() const { return m_kernel; }
  Size2 stride() const { return m_stride; }
  Size2 padding() const { return m_padding; }

 private:
  Kind m_kind;
  Size2 m_kernel;
  Size2 m_stride;
  Size2 m_padding;
};

class AdaptiveAvgPool2dLayer : public Layer {
 public:
  explicit AdaptiveAvgPool2dLayer(Size2 outputSize) : m_outputSize(outputSize) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "adaptive_avgpool2d"; }
  nlohmann::json toJson() const override {
    return {{"type", type()}, {"output_size", m_outputSize.toJson()}};
  }
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape&) const override { return 0; }
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  Size2 outputSize() const { return m_outputSize; }

 private:
  Size2 m_outputSize;
};

}  // namespace wb
