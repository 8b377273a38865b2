#pragma once
// One entry of a model's layer list, described without weights: its parameters, what it does to a shape, what
// it costs, and how to make its torch module. Passes that come later (pruning, quantization, export) read and
// rebuild models through this description instead of poking at instantiated modules.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/layer_names.h"

namespace wb {

// A sample's shape without the batch dimension: [C, H, W] for images, [F] for features, [N, D] for tokens.
using Shape = std::vector<int64_t>;

// "[64, 7, 7]"
std::string shapeToString(const Shape& shape);

// A layer that cannot take the shape it is given. `path` is relative to the list being walked ("" for the
// layer itself, "layers[1]" for the second layer inside a residual); list walkers prefix their own position,
// so the error reaching the user names the full JSON path of the offending layer.
class ShapeError : public std::runtime_error {
 public:
  explicit ShapeError(const std::string& message, std::string path = {})
      : std::runtime_error(message), m_path(std::move(path)) {}
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

class Layer;
using LayerPtr = std::shared_ptr<const Layer>;

class Layer {
 public:
  virtual ~Layer() = default;

  // The name the layer list uses ("conv2d").
  virtual std::string type() const = 0;

  // Every parameter with defaults filled in, including "type": parsing this again gives the same layer, so a
  // pass can edit a layer (say, fewer out_channels) by editing its JSON. The layer's names ("name",
  // "param_names") are not the type's business: layerToJson below adds them.
  virtual nlohmann::json toJson() const = 0;

  // The output shape for one sample of shape `input`; throws ShapeError saying what the layer expects.
  virtual Shape outputShape(const Shape& input) const = 0;

  // Trainable parameters for this input (buffers such as batch-norm statistics are not counted).
  virtual int64_t parameterCount(const Shape& input) const = 0;

  // Forward FLOPs for one sample: multiply-adds of convolutions, linear maps and attention matmuls, each
  // counted as 2 FLOPs. Bias additions, activations, normalization, pooling and softmax count 0: they are
  // elementwise and small next to the matmuls, and leaving them out keeps the number comparable with
  // published model sizes.
  virtual int64_t flopsPerSample(const Shape& input) const = 0;

  // A fresh torch module for this input, initialized the way PyTorch initializes it.
  virtual torch::nn::AnyModule instantiate(const Shape& input) const = 0;

  // The layer lists this layer holds, each with the name of its submodule ({"layers", body}, {"shortcut",
  // shortcut} for a residual); none for a plain layer. Walkers that visit every layer (outside names) use it.
  virtual std::vector<std::pair<std::string, const std::vector<LayerPtr>*>> branches() const { return {}; }

  // The layer's names outside the workbench (model/layer_names.h), read by parseLayerList from any layer
  // object.
  const LayerNaming& naming() const { return m_naming; }
  void setNaming(LayerNaming naming) { m_naming = std::move(naming); }

 private:
  LayerNaming m_naming;
};

// toJson() with the layer's names: what a layer list is written back as.
nlohmann::json layerToJson(const Layer& layer);

}  // namespace wb
