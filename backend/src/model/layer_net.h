#pragma once
// The torch module of a layer list: one submodule per layer under "layers", so parameter names are
// "layers.<index>.<name>" — PyTorch's keys for a module holding an nn.Sequential called `layers`. Index N is
// model.layers[N] of the experiment, parameterless layers included, so a name leads back to its JSON.

#include <functional>
#include <vector>

#include "model/layer.h"

namespace wb {

class LayerNetImpl : public torch::nn::Module {
 public:
  // `layers` must already have passed shape inference for `inputShape` (see checkLayers).
  LayerNetImpl(std::vector<LayerPtr> layers, Shape inputShape);

  // [B, ...inputShape] -> [B, ...output shape]
  torch::Tensor forward(torch::Tensor x);

  const std::vector<LayerPtr>& layerList() const { return m_layerList; }
  const Shape& inputShape() const { return m_inputShape; }
  // The modules, one per layer of the list (quantization-aware training runs them itself, layer by layer).
  torch::nn::Sequential& layers() { return m_layers; }

  // Runs the top-level layers one by one through `runner` instead of the Sequential's own forward:
  // train.shard "parameters" gathers each layer's parameters around it (parallel/sharded_parameters.h).
  // Empty: the plain forward.
  using LayerRunner =
      std::function<torch::Tensor(size_t index, torch::nn::AnyModule& layer, torch::Tensor x)>;
  void setLayerRunner(LayerRunner runner) { m_runner = std::move(runner); }

 private:
  std::vector<LayerPtr> m_layerList;
  Shape m_inputShape;
  torch::nn::Sequential m_layers;
  LayerRunner m_runner;
};
TORCH_MODULE(LayerNet);

}  // namespace wb
