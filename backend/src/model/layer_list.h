#pragma once
// What a list of layers does as a whole: parsed from JSON, walked for shapes, costed, instantiated. The model
// itself is such a list, and so are the branches of a residual layer.

#include <torch/torch.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/layer.h"
#include "workbench/experiment.h"

namespace wb {

// Parses a JSON array of layer objects at `path` ("model.layers"). Layers with issues are left out, so the
// result is only usable when no issue was appended.
std::vector<LayerPtr> parseLayerList(const nlohmann::json& list, const std::string& path,
                                     std::vector<ValidationIssue>& issues);

// The output shape after each layer. A ShapeError comes out with its path starting at `listName`
// ("layers[2]", or "layers[2].shortcut[0]" when it came from inside a residual) and its message starting with
// the layer's type.
std::vector<Shape> inferShapes(const std::vector<LayerPtr>& layers, const Shape& input,
                               const std::string& listName);

int64_t parameterCount(const std::vector<LayerPtr>& layers, const Shape& input);
int64_t flopsPerSample(const std::vector<LayerPtr>& layers, const Shape& input);

// One submodule per layer, named "0", "1", ... like PyTorch's nn.Sequential, so state-dict keys follow the
// layer list: layers[3] owns "<prefix>.3.weight".
torch::nn::Sequential instantiateLayers(const std::vector<LayerPtr>& layers, const Shape& input);

nlohmann::json layersToJson(const std::vector<LayerPtr>& layers);

}  // namespace wb
