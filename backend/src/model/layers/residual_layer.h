#pragma once
// residual: y = layers(x) + shortcut(x), the shortcut being the identity when the list gives none. Both
// branches are layer lists of their own, so passes walk into them the same way they walk the model.

#include <optional>
#include <vector>

#include "model/layer.h"
#include "model/layer_params.h"
#include "model/layer_registry.h"

namespace wb {

void addResidualLayerType(std::vector<LayerType>& types);

class ResidualLayer : public Layer {
 public:
  // An empty shortcut list means the identity.
  ResidualLayer(std::vector<LayerPtr> body, std::vector<LayerPtr> shortcut)
      : m_body(std::move(body)), m_shortcut(std::move(shortcut)) {}
  static LayerPtr parse(LayerParams& params);

  std::string type() const override { return "residual"; }
  nlohmann::json toJson() const override;
  Shape outputShape(const Shape& input) const override;
  int64_t parameterCount(const Shape& input) const override;
  int64_t flopsPerSample(
      const Shape& input) const override;  // the sum itself counts 0, like other elementwise ops
  torch::nn::AnyModule instantiate(const Shape& input) const override;

  std::vector<std::pair<std::string, const std::vector<LayerPtr>*>> branches() const override {
    return {{"layers", &m_body}, {"shortcut", &m_shortcut}};
  }

  const std::vector<LayerPtr>& body() const { return m_body; }
  const std::vector<LayerPtr>& shortcut() const { return m_shortcut; }

 private:
  std::vector<LayerPtr> m_body;
  std::vector<LayerPtr> m_shortcut;
};

// Submodules "layers" and, when the shortcut is not the identity, "shortcut": state-dict keys read like the
// JSON
// ("layers.3.layers.0.weight" is model.layers[3].layers[0]).
class ResidualImpl : public torch::nn::Module {
 public:
  ResidualImpl(torch::nn::Sequential body, torch::nn::Sequential shortcut);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Sequential m_body;
  torch::nn::Sequential m_shortcut;  // null for the identity
};
TORCH_MODULE(Residual);

}  // namespace wb
