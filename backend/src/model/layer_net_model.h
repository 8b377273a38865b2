#pragma once
// Model for a network built from a layer list (a preset or the experiment's own list).

#include <vector>

#include "model/layer.h"
#include "model/layer_net.h"
#include "model/model.h"

namespace wb {

class LayerNetModel : public Model {
 public:
  // `layers` must have passed shape inference for `inputShape`.
  LayerNetModel(std::vector<LayerPtr> layers, Shape inputShape);

  torch::Tensor forward(const torch::Tensor& x) override;
  std::vector<torch::Tensor> parameters() override;
  std::vector<std::pair<std::string, torch::Tensor>> namedParameters() override;
  std::vector<std::pair<std::string, torch::Tensor>> namedBuffers() override;
  // From the layers' "name" and "param_names" (model/layer_names.h), worked out once when the model is built.
  std::map<std::string, std::string> externalNames() const override { return m_externalNames; }
  void train(bool on) override;
  void to(const torch::Device& device) override;
  // A torch::serialize archive with one entry per parameter and buffer, keyed by its name.
  void save(const std::string& file) override;
  void load(const std::string& file) override;
  ModelInfo info() const override;

  LayerNet& net() { return m_net; }

 private:
  LayerNet m_net;
  std::map<std::string, std::string> m_externalNames;
};

// One row per layer (nested rows for residual branches): index, type, output shape, parameters, and the
// outside name where the list has names (model/layer_names.h); then totals.
std::string layerSummary(const std::vector<LayerPtr>& layers, const Shape& inputShape);

// "3,274,634"
std::string groupedThousands(int64_t value);

}  // namespace wb
