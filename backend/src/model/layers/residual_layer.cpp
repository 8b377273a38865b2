#include "model/layers/residual_layer.h"

#include "model/layer_list.h"

namespace wb {
namespace {

// For the common mismatch (an image branch that changed channels or resolution) name the projection that
// fixes it.
std::string projectionHint(const Shape& input, const Shape& body) {
  if (input.size() == 3 && body.size() == 3 && input[1] % body[1] == 0 &&
      input[1] / body[1] == input[2] / body[2]) {
    return ": give the residual a shortcut such as [{\"type\": \"conv2d\", \"out_channels\": " +
           std::to_string(body[0]) +
           ", \"kernel_size\": 1, \"stride\": " + std::to_string(input[1] / body[1]) +
           ", \"bias\": false}, {\"type\": \"batchnorm2d\"}]";
  }
  return ": change one branch so both end in the same shape";
}

}  // namespace

void addResidualLayerType(std::vector<LayerType>& types) {
  types.push_back({"residual", &ResidualLayer::parse});
}

LayerPtr ResidualLayer::parse(LayerParams& params) {
  auto body = params.layerList("layers", /*required=*/true);
  auto shortcut = params.layerList("shortcut", /*required=*/false);
  if (!params.finish()) return nullptr;
  return std::make_shared<ResidualLayer>(std::move(*body), shortcut.value_or(std::vector<LayerPtr>{}));
}

nlohmann::json ResidualLayer::toJson() const {
  nlohmann::json json = {{"type", type()}, {"layers", layersToJson(m_body)}};
  if (!m_shortcut.empty()) json["shortcut"] = layersToJson(m_shortcut);
  return json;
}

Shape ResidualLayer::outputShape(const Shape& input) const {
  const Shape body = inferShapes(m_body, input, "layers").back();
  const Shape shortcut = m_shortcut.empty() ? input : inferShapes(m_shortcut, input, "shortcut").back();
  if (body != shortcut) {
    throw ShapeError("adds two branches that must end in the same shape, but its layers give " +
                     shapeToString(body) + " and its shortcut" +
                     (m_shortcut.empty() ? " (the identity)" : "") + " gives " + shapeToString(shortcut) +
                     projectionHint(input, body));
  }
  return body;
}

int64_t ResidualLayer::parameterCount(const Shape& input) const {
  return wb::parameterCount(m_body, input) + wb::parameterCount(m_shortcut, input);
}

int64_t ResidualLayer::flopsPerSample(const Shape& input) const {
  return wb::flopsPerSample(m_body, input) + wb::flopsPerSample(m_shortcut, input);
}

torch::nn::AnyModule ResidualLayer::instantiate(const Shape& input) const {
  return torch::nn::AnyModule(Residual(instantiateLayers(m_body, input),
                                       m_shortcut.empty() ? nullptr : instantiateLayers(m_shortcut, input)));
}

ResidualImpl::ResidualImpl(torch::nn::Sequential body, torch::nn::Sequential shortcut)
    : m_body(register_module("layers", std::move(body))), m_shortcut(std::move(shortcut)) {
  if (m_shortcut) register_module("shortcut", m_shortcut);
}

torch::Tensor ResidualImpl::forward(torch::Tensor x) {
  torch::Tensor skipped = m_shortcut ? m_shortcut->forward(x) : x;
  return m_body->forward(x) + skipped;
}

}  // namespace wb
