#include "model/layer_registry.h"

#include "model/layers/conv_layers.h"
#include "model/layers/dense_layers.h"
#include "model/layers/residual_layer.h"
#include "model/layers/transformer_layers.h"
#include "model/model.h"
#include "model/name_suggestions.h"

namespace wb {

const std::vector<LayerType>& layerTypeTable() {
  static const std::vector<LayerType> table = [] {
    std::vector<LayerType> types;
    addConvLayerTypes(types);
    addDenseLayerTypes(types);
    addResidualLayerType(types);
    addTransformerLayerTypes(types);
    return types;
  }();
  return table;
}

std::vector<std::string> layerTypes() {
  std::vector<std::string> names;
  for (const LayerType& type : layerTypeTable()) names.push_back(type.name);
  return names;
}

LayerPtr parseLayer(const nlohmann::json& object, const std::string& path,
                    std::vector<ValidationIssue>& issues) {
  if (!object.is_object()) {
    issues.push_back(
        {path, "each layer must be an object such as {\"type\": \"relu\"}, got " + object.dump()});
    return nullptr;
  }
  const auto typeIt = object.find("type");
  if (typeIt == object.end() || !typeIt->is_string()) {
    std::string message = typeIt == object.end() ? "missing \"type\"" : "\"type\" must be a string";
    issues.push_back({path + ".type", message + "; one of: " + joinedNames(layerTypes())});
    return nullptr;
  }
  const std::string name = typeIt->get<std::string>();
  for (const LayerType& type : layerTypeTable()) {
    if (type.name != name) continue;
    LayerParams params(object, path, name, issues);
    return type.parse(params);
  }
  issues.push_back(
      {path + ".type", "unknown layer type \"" + name + "\"." + suggestionText(name, layerTypes())});
  return nullptr;
}

}  // namespace wb
