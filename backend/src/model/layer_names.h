#pragma once
// The names a layer list's tensors have outside the workbench (torchvision's, for the standard
// architectures), kept as metadata on the layers: the modules themselves are registered as always, so
// state-dict keys stay "layers.<index>...." for every pass, checkpoint and export, and the outside names are
// mapped only where the outside is met (weights files, freeze patterns, parameter groups, the Model tab).
//
// Two optional keys on any layer object of a layer list say them:
//
//   "name": the layer's module path in the outside model, relative to the module that holds the list.
//       Dots are allowed: {"type": "residual", "name": "layer1.0", ...} is torchvision's resnet.layer1[0]
//       (there is no container layer for "layer1": the blocks carry the stage in their names). A residual's
//       body and shortcut layers are named relative to the residual itself, both branches in one namespace,
//       as torchvision's blocks hold conv1, bn1, ..., downsample: body [{"name": "conv1"}, {"name": "bn1"},
//       ...], shortcut [{"name": "downsample.0"}, {"name": "downsample.1"}]. "" puts the layer's tensors
//       directly on the holding module (ViT's class_token sits on the model itself).
//   "param_names": {"ours": "theirs", ...} renames the tensors inside the layer where the layer type's own
//       names differ from the outside model's: each key is a tensor name or a dotted prefix of one
//       ("norm1" covers norm1.weight and norm1.bias; the longest matching key wins), its value the outside
//       name ("" drops the prefix: {"proj": ""} makes patch_embed's proj.weight just "weight").
//
// A tensor of a layer with neither key keeps its own name outside ("layers.7.weight"), so a list without
// names maps every tensor to itself. Containers (residual, and any layer type that holds layer lists) say
// which lists they hold through Layer::branches(), and the names are resolved through them.
//
// Example, torchvision's ViT encoder block (model/architectures/vision_transformer.cpp):
//   {"type": "encoder_block", "name": "encoder.layers.encoder_layer_0",
//    "param_names": {"norm1": "ln_1", "attn": "self_attention", "norm2": "ln_2", "fc1": "mlp.0", "fc2":
//    "mlp.3"}}

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

class Layer;

struct LayerNaming {
  std::optional<std::string> name;                // absent: the layer keeps its own path outside
  std::map<std::string, std::string> paramNames;  // tensor name (or dotted prefix) -> outside name

  bool empty() const { return !name && paramNames.empty(); }
  bool operator==(const LayerNaming& other) const = default;
};

// Reads "name" and "param_names" of the layer object at `path` ("model.layers[3]"); what is wrong goes to
// `issues` with the key's path.
LayerNaming parseLayerNaming(const nlohmann::json& object, const std::string& path,
                             std::vector<ValidationIssue>& issues);

// Adds "name" and "param_names" (where present) to a layer's JSON.
void addLayerNaming(const LayerNaming& naming, nlohmann::json& object);

// A tensor's name inside the layer ("norm1.weight") as the outside model spells it relative to the layer
// ("ln_1.weight"), by the layer's param_names.
std::string outsideTensorName(const LayerNaming& naming, const std::string& tensorName);

// The outside name of each key of `keys` (state-dict keys of a LayerNet over `layers`: "layers.4.layers.0.
// weight") that is named differently outside; keys spelled the same outside are left out. Throws
// std::invalid_argument, naming both keys, when two tensors would have one outside name; a key that does
// not belong to the list is an error too (a bug, not the user's).
std::map<std::string, std::string> outsideNames(const std::vector<std::shared_ptr<const Layer>>& layers,
                                                const std::vector<std::string>& keys);

// Where a layer or a list sits, inside (state-dict prefix) and outside. Walkers that show names (the model
// summary) go down the list with these, as outsideNames does.
struct NamePlace {
  std::string inside;   // "layers.4" for a layer; "layers.4.layers." for a list (with its trailing dot)
  std::string outside;  // "layer1.0" for a layer; "layer1.0." for the list its named children join
};

// The model's own list: "layers." inside, the outside model's root ("") outside.
NamePlace modelListPlace();
// Layer `index` of the list at `list`.
NamePlace layerPlace(const NamePlace& list, size_t index, const LayerNaming& naming);
// The branch list `branch` ("layers", "shortcut") of the layer at `layer`. A named layer's branches join its
// own outside path (torchvision's blocks hold both branches' modules); an unnamed one's keep their inside
// path.
NamePlace branchPlace(const NamePlace& layer, const LayerNaming& naming, const std::string& branch);

}  // namespace wb
