#pragma once
// The torchvision presets' initial weights drawn as torchvision 0.14 draws them (the init loops in each
// model's __init__), so that a from-scratch run and a new head for the data's classes start where PyTorch's
// would; LibTorch's module defaults differ (ResNet's first conv: std 0.048 for torchvision's 0.026).

#include "model/model.h"
#include "workbench/experiment_words.h"

namespace wb {

// Redraws the parameters of `model`, built from `preset`'s layer list, with torchvision's schemes, from the
// global generator (a run seeds it before building, so the weights follow the seed). Matches tensors by their
// torchvision names (Model::externalNames). The presets that are not torchvision's (mlp, cnn, resnet, vit)
// keep LibTorch's defaults: nothing changes.
void initializeAsTorchvision(ModelPreset preset, Model& model);

}  // namespace wb
