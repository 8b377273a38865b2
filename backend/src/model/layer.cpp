#include "model/layer.h"

namespace wb {

std::string shapeToString(const Shape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

nlohmann::json layerToJson(const Layer& layer) {
  nlohmann::json json = layer.toJson();
  addLayerNaming(layer.naming(), json);
  return json;
}

}  // namespace wb
