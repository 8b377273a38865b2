#pragma once
// Layers that work on the last dimension or on any shape: linear, flatten, dropout, batchnorm1d, layernorm,
// identity and the activations relu, gelu, tanh, sigmoid, hardswish, hardsigmoid, silu.

#include <vector>

#include "model/layer.h"
#include "model/layer_params.h"
#include "model/layer_registry.h"

namespace wb {

void addDenseLayerTypes(std::vector<LayerType>& types);

// Maps the last dimension: [F] -> [out_features], and tokens [N, D] -> [N, out_features].
class LinearLayer : public Layer {
 public:
  LinearLayer(int64_t outFeatures, bool bias) : m_outFeatures(outFeatures), m_bias(bias) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "linear"; }
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

// Any shape -> [product of its dimensions].
class FlattenLayer : public Layer {
 public:
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "flatten"; }
  nlohmann::json toJson() const override { return {{"type", type()}}; }
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape&) const override { return 0; }
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;
};

// Dropout; in a data-parallel rank's training steps on the CPU its masks come from the rank's step generator
// (step_generator.h).
class DropoutLayer : public Layer {
 public:
  explicit DropoutLayer(double p) : m_p(p) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "dropout"; }
  nlohmann::json toJson() const override { return {{"type", type()}, {"p", m_p}}; }
  Shape outputShape(const Shape& input) const override { return input; }
  int64_t parameterCount(const Shape&) const override { return 0; }
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  double p() const { return m_p; }

 private:
  double m_p;
};

// Passes its input on unchanged. Compression passes put it where a layer was merged into its neighbour (a
// batch norm folded into the conv before it), so the indices of the layers after it, and with them the
// state-dict names, do not shift.
class IdentityLayer : public Layer {
 public:
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "identity"; }
  nlohmann::json toJson() const override { return {{"type", type()}}; }
  Shape outputShape(const Shape& input) const override { return input; }
  int64_t parameterCount(const Shape&) const override { return 0; }
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;
};

// Batch norm over flat features [F]; over the global batch of a data-parallel run while a SyncBatchNormScope
// names its ranks (sync_batch_norm.h).
class BatchNorm1dLayer : public Layer {
 public:
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "batchnorm1d"; }
  nlohmann::json toJson() const override { return {{"type", type()}}; }
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override;
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;
};

// Layer norm over the last dimension, with a learned scale and shift; eps as nn.LayerNorm's (torchvision's
// ViT and ConvNeXt use 1e-6).
class LayerNormLayer : public Layer {
 public:
  static constexpr double kDefaultEps = 1e-5;
  explicit LayerNormLayer(double eps = kDefaultEps) : m_eps(eps) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "layernorm"; }
  nlohmann::json toJson() const override { return {{"type", type()}, {"eps", m_eps}}; }
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override;
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  double eps() const { return m_eps; }

 private:
  double m_eps;
};

// relu, gelu (exact, not the tanh approximation), tanh, sigmoid, hardswish (x * relu6(x + 3) / 6),
// hardsigmoid (relu6(x + 3) / 6), silu (x * sigmoid(x)): elementwise, any shape.
class ActivationLayer : public Layer {
 public:
  explicit ActivationLayer(std::string name) : m_name(std::move(name)) {}
  static LayerPtr parse(const std::string& name, LayerParams& params);

  std::string type() const override { return m_name; }
  nlohmann::json toJson() const override { return {{"type", type()}}; }
  Shape outputShape(const Shape& input) const override { return input; }
  int64_t parameterCount(const Shape&) const override { return 0; }
  int64_t flopsPerSample(const Shape&) const override { return 0; }
  torch::nn::AnyModule instantiate(const Shape& input) const override;

 private:
  std::string m_name;
};

}  // namespace wb
