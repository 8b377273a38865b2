#include "model/layer_list.h"

#include "model/layer_registry.h"

namespace wb {

std::vector<LayerPtr> parseLayerList(const nlohmann::json& list, const std::string& path,
                                     std::vector<ValidationIssue>& issues) {
  std::vector<LayerPtr> layers;
  if (!list.is_array()) {
    issues.push_back(
        {path, "must be a list of layers such as [{\"type\": \"flatten\"}, ...], got " + list.dump()});
    return layers;
  }
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string layerPath = path + "[" + std::to_string(i) + "]";
    LayerPtr layer = parseLayer(list[i], layerPath, issues);
    if (!layer) continue;
    // Any layer of a list may carry its outside names (model/layer_names.h); its type let the keys through.
    const size_t issuesBefore = issues.size();
    LayerNaming naming = parseLayerNaming(list[i], layerPath, issues);
    if (issues.size() != issuesBefore) continue;
    // The layer was made just above and nothing else holds it yet: naming it is part of making it.
    std::const_pointer_cast<Layer>(layer)->setNaming(std::move(naming));
    layers.push_back(std::move(layer));
  }
  return layers;
}

std::vector<Shape> inferShapes(const std::vector<LayerPtr>& layers, const Shape& input,
                               const std::string& listName) {
  std::vector<Shape> shapes;
  Shape current = input;
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string position = listName + "[" + std::to_string(i) + "]";
    try {
      current = layers[i]->outputShape(current);
    } catch (const ShapeError& error) {
      if (error.path().empty()) throw ShapeError(layers[i]->type() + " " + error.what(), position);
      throw ShapeError(error.what(), position + "." + error.path());
    }
    shapes.push_back(current);
  }
  return shapes;
}

int64_t parameterCount(const std::vector<LayerPtr>& layers, const Shape& input) {
  int64_t total = 0;
  Shape current = input;
  for (const LayerPtr& layer : layers) {
    total += layer->parameterCount(current);
    current = layer->outputShape(current);
  }
  return total;
}

int64_t flopsPerSample(const std::vector<LayerPtr>& layers, const Shape& input) {
  int64_t total = 0;
  Shape current = input;
  for (const LayerPtr& layer : layers) {
    total += layer->flopsPerSample(current);
    current = layer->outputShape(current);
  }
  return total;
}

torch::nn::Sequential instantiateLayers(const std::vector<LayerPtr>& layers, const Shape& input) {
  torch::nn::Sequential sequential;
  Shape current = input;
  for (const LayerPtr& layer : layers) {
    sequential->push_back(layer->instantiate(current));
    current = layer->outputShape(current);
  }
  return sequential;
}

nlohmann::json layersToJson(const std::vector<LayerPtr>& layers) {
  nlohmann::json list = nlohmann::json::array();
  for (const LayerPtr& layer : layers) list.push_back(layerToJson(*layer));
  return list;
}

}  // namespace wb
