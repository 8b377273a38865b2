#pragma once
// Which of a model's parameters are its classifier head: the part a fine-tune replaces to fit the user's
// classes and trains while the body is frozen.

#include <string>
#include <vector>

#include "model/model.h"

namespace wb {

// The parameters (our names, in the model's order) of the module that owns the model's last parameter: the
// final linear layer of a layer list, torchvision's `fc`, `classifier.3` or `heads.head`. A model's output
// comes from that module in every architecture we build, and a TorchScript model names its modules the same
// way, so one rule serves both. Empty for a model without parameters.
std::vector<std::string> headParameterNames(Model& model);

// "layers.12" for "layers.12.weight"; "" for a parameter of the model itself ("class_token").
std::string owningModuleName(const std::string& parameterName);

}  // namespace wb
