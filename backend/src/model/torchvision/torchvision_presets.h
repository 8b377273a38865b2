#pragma once
// torchvision's image classifiers as layer lists (model.preset resnet18, resnet50, vit_b_16): the same
// layers, shapes and parameter counts as torchvision 0.14's models, each layer named (model/layer_names.h)
// so that Model::externalNames gives exactly torchvision's state_dict keys, and the head sized for the
// data's classes. Images only; the input's channels set the first conv's (3 for torchvision's shapes).

#include <cstdint>
#include <nlohmann/json.hpp>

#include "model/layer.h"

namespace wb {

// torchvision.models.resnet18 (depth 18, basic blocks) or resnet50 (depth 50, bottlenecks "v1.5": the
// stride on the 3x3 conv). Any image that the five halvings leave at least 1x1 (32 px and up keep every
// stage meaningful). Depths 34, 101 and 152 are torchvision's too; another throws std::invalid_argument.
nlohmann::json torchvisionResnetLayers(int depth, const Shape& input, int64_t numClasses);

// torchvision.models.vit_b_16: patch 16, dim 768, 12 blocks of 12 heads, MLP 3072, layer norms eps 1e-6.
// Its position embedding has one row per patch of a 224x224 image, as torchvision's weights do: other
// sizes are refused with a UserError saying so.
nlohmann::json torchvisionVitB16Layers(const Shape& input, int64_t numClasses);

}  // namespace wb
