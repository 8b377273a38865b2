#pragma once
// torchvision's mobile and modern CNNs as layer lists (model.preset mobilenet_v3_large, efficientnet_b0,
// convnext_tiny): the same layers, shapes and parameter counts as torchvision 0.14's models, each layer named
// (model/layer_names.h) so that Model::externalNames gives exactly torchvision's state_dict keys, and the
// head sized for the data's classes. Images only; the input's channels set the first conv's (3 for
// torchvision's shapes). The dropout and stochastic-depth probabilities are torchvision's defaults unless
// given (a test that compares training-mode outputs sets them to 0 on both sides).

#include <cstdint>
#include <nlohmann/json.hpp>

#include "model/layer.h"

namespace wb {

// torchvision.models.mobilenet_v3_large: a 3x3/2 stem, 15 inverted residuals (depthwise convs, squeeze-
// excitation with hardsigmoid in some, hardswish in the later ones), a 1x1 conv to 960, then
// linear 1280 - hardswish - dropout - linear. Batch norms eps 0.001, momentum 0.01.
nlohmann::json torchvisionMobileNetV3LargeLayers(const Shape& input, int64_t numClasses,
                                                 double dropout = 0.2);

// torchvision.models.efficientnet_b0: a 3x3/2 stem, 16 MBConv blocks in 7 stages (depthwise convs, SiLU,
// squeeze-excitation; stochastic depth growing linearly to `stochasticDepth` over the blocks), a 1x1 conv to
// 1280, then dropout - linear. Batch norms with nn.BatchNorm2d's defaults, as torchvision's b0 has.
nlohmann::json torchvisionEfficientNetB0Layers(const Shape& input, int64_t numClasses,
                                               double stochasticDepth = 0.2, double dropout = 0.2);

// torchvision.models.convnext_tiny: a 4x4/4 stem with layernorm2d, stages of 3, 3, 9, 3 ConvNeXt blocks
// (depthwise 7x7, layer norm, channel MLP with GELU, layer scale, stochastic depth growing linearly to
// `stochasticDepth`) at 96, 192, 384, 768 channels with layernorm2d + 2x2/2 conv between them, then
// layernorm2d - flatten - linear. Layer norms eps 1e-6.
nlohmann::json torchvisionConvNextTinyLayers(const Shape& input, int64_t numClasses,
                                             double stochasticDepth = 0.1);

}  // namespace wb
