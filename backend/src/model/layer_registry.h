#pragma once
// The table of layer types: each family of layers (conv_layers.h, dense_layers.h, residual_layer.h,
// transformer_layers.h) adds its types here. Families register explicitly rather than through static
// initializers, which a static library would silently drop.

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/layer.h"
#include "model/layer_params.h"
#include "workbench/experiment.h"

namespace wb {

struct LayerType {
  std::string name;
  // Reads the parameters; returns nullptr when LayerParams::finish() reported issues.
  std::function<LayerPtr(LayerParams&)> parse;
};

// Every registered type, in the order the docs list them.
const std::vector<LayerType>& layerTypeTable();

// One layer object at `path` ("model.layers[3]"); nullptr, with issues appended, when it is not valid.
LayerPtr parseLayer(const nlohmann::json& object, const std::string& path,
                    std::vector<ValidationIssue>& issues);

}  // namespace wb
