#include "model/layers/dense_layers.h"

#include <stdexcept>

#include "model/layers/step_dropout.h"
#include "model/layers/sync_batch_norm.h"
#include "model/model_build_context.h"
#include "model/shape_rules.h"

namespace wb {

void addDenseLayerTypes(std::vector<LayerType>& types) {
  types.push_back({"flatten", &FlattenLayer::parse});
  types.push_back({"linear", &LinearLayer::parse});
  types.push_back({"dropout", &DropoutLayer::parse});
  types.push_back({"batchnorm1d", &BatchNorm1dLayer::parse});
  types.push_back({"layernorm", &LayerNormLayer::parse});
  types.push_back({"identity", &IdentityLayer::parse});
  for (const char* name : {"relu", "gelu", "tanh", "sigmoid", "hardswish", "hardsigmoid", "silu"}) {
    types.push_back({name, [name](LayerParams& p) { return ActivationLayer::parse(name, p); }});
  }
}

// linear
// ------------------------------------------------------------------------------------------------------

LayerPtr LinearLayer::parse(LayerParams& params) {
  const int64_t outFeatures = params.integer("out_features", std::nullopt, 1);
  const bool bias = params.flag("bias", true);
  if (!params.finish()) return nullptr;
  return std::make_shared<LinearLayer>(outFeatures, bias);
}

nlohmann::json LinearLayer::toJson() const {
  return {{"type", type()}, {"out_features", m_outFeatures}, {"bias", m_bias}};
}

Shape LinearLayer::outputShape(const Shape& input) const {
  if (input.size() != 2) requireFlat(input);  // tokens [N, D] are fine too
  Shape output = input;
  output.back() = m_outFeatures;
  return output;
}

int64_t LinearLayer::parameterCount(const Shape& input) const {
  return input.back() * m_outFeatures + (m_bias ? m_outFeatures : 0);
}

int64_t LinearLayer::flopsPerSample(const Shape& input) const {
  const int64_t rows = input.size() == 2 ? input[0] : 1;  // one matrix-vector product per token
  return 2 * rows * input.back() * m_outFeatures;
}

torch::nn::AnyModule LinearLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(
      torch::nn::Linear(torch::nn::LinearOptions(input.back(), m_outFeatures).bias(m_bias)));
}

// flatten
// -----------------------------------------------------------------------------------------------------

LayerPtr FlattenLayer::parse(LayerParams& params) {
  if (!params.finish()) return nullptr;
  return std::make_shared<FlattenLayer>();
}

Shape FlattenLayer::outputShape(const Shape& input) const {
  return {elementCount(input)};
}

torch::nn::AnyModule FlattenLayer::instantiate(const Shape&) const {
  return torch::nn::AnyModule(torch::nn::Flatten());  // keeps the batch dimension, like nn.Flatten()
}

// dropout
// -----------------------------------------------------------------------------------------------------

LayerPtr DropoutLayer::parse(LayerParams& params) {
  const double p = params.number("p", 0.5, 0.0, 1.0);
  if (!params.finish()) return nullptr;
  return std::make_shared<DropoutLayer>(p);
}

torch::nn::AnyModule DropoutLayer::instantiate(const Shape&) const {
  return torch::nn::AnyModule(StepDropout(m_p));  // torch's Dropout unless a rank's step generator is set
}

// identity
// ----------------------------------------------------------------------------------------------------

LayerPtr IdentityLayer::parse(LayerParams& params) {
  if (!params.finish()) return nullptr;
  return std::make_shared<IdentityLayer>();
}

torch::nn::AnyModule IdentityLayer::instantiate(const Shape&) const {
  return torch::nn::AnyModule(torch::nn::Identity());
}

// batchnorm1d
// -------------------------------------------------------------------------------------------------

LayerPtr BatchNorm1dLayer::parse(LayerParams& params) {
  if (!params.finish()) return nullptr;
  return std::make_shared<BatchNorm1dLayer>();
}

Shape BatchNorm1dLayer::outputShape(const Shape& input) const {
  if (input.size() == 3) {
    throw ShapeError("expects a flat input [features], got " + shapeToString(input) +
                     ": use batchnorm2d for images, or add a flatten layer before it");
  }
  if (input.size() == 2) {
    throw ShapeError("expects a flat input [features], got tokens " + shapeToString(input) +
                     ": use layernorm for tokens");
  }
  requireFlat(input);
  return input;
}

int64_t BatchNorm1dLayer::parameterCount(const Shape& input) const {
  return 2 * input[0];
}

torch::nn::AnyModule BatchNorm1dLayer::instantiate(const Shape& input) const {
  if (RankGroup* group = syncBatchNormGroup()) return torch::nn::AnyModule(SyncBatchNorm1d(input[0], *group));
  return torch::nn::AnyModule(torch::nn::BatchNorm1d(input[0]));
}

// layernorm
// ---------------------------------------------------------------------------------------------------

LayerPtr LayerNormLayer::parse(LayerParams& params) {
  const double eps = params.number("eps", kDefaultEps, 1e-12, 1.0);
  if (!params.finish()) return nullptr;
  return std::make_shared<LayerNormLayer>(eps);
}

Shape LayerNormLayer::outputShape(const Shape& input) const {
  if (input.empty()) throw ShapeError("expects at least one dimension, got []");
  return input;
}

int64_t LayerNormLayer::parameterCount(const Shape& input) const {
  return 2 * input.back();
}

torch::nn::AnyModule LayerNormLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(torch::nn::LayerNorm(torch::nn::LayerNormOptions({input.back()}).eps(m_eps)));
}

// activations
// -------------------------------------------------------------------------------------------------

LayerPtr ActivationLayer::parse(const std::string& name, LayerParams& params) {
  if (!params.finish()) return nullptr;
  return std::make_shared<ActivationLayer>(name);
}

torch::nn::AnyModule ActivationLayer::instantiate(const Shape&) const {
  if (m_name == "relu") return torch::nn::AnyModule(torch::nn::ReLU());
  if (m_name == "gelu") return torch::nn::AnyModule(torch::nn::GELU());
  if (m_name == "tanh") return torch::nn::AnyModule(torch::nn::Tanh());
  if (m_name == "sigmoid") return torch::nn::AnyModule(torch::nn::Sigmoid());
  if (m_name == "silu") return torch::nn::AnyModule(torch::nn::SiLU());
  // LibTorch has no module for these two; the functions are ATen's, as nn.Hardswish / nn.Hardsigmoid call.
  if (m_name == "hardswish") {
    return torch::nn::AnyModule(
        torch::nn::Functional([](const torch::Tensor& x) { return torch::hardswish(x); }));
  }
  if (m_name == "hardsigmoid") {
    return torch::nn::AnyModule(
        torch::nn::Functional([](const torch::Tensor& x) { return torch::hardsigmoid(x); }));
  }
  throw std::logic_error("ActivationLayer: no module for " + m_name);
}

}  // namespace wb
