#pragma once
// A small net of every layer type torchvision's MobileNetV3, EfficientNet and ConvNeXt add, for the export
// and compression tests.

#include <nlohmann/json.hpp>

namespace wb::test {

// The pieces of MobileNetV3, EfficientNet and ConvNeXt: a depthwise conv, batch norm with eps 1e-3,
// hardswish, silu, hardsigmoid, squeeze-excitation both ways, stochastic depth, layernorm2d, channel_linear
// and layer_scale.
inline nlohmann::json mobileLayers() {
  return nlohmann::json::parse(R"([
    {"type": "conv2d", "out_channels": 16, "kernel_size": 3, "stride": 2, "padding": 1, "bias": false},
    {"type": "batchnorm2d", "eps": 0.001, "momentum": 0.01},
    {"type": "hardswish"},
    {"type": "residual", "layers": [
      {"type": "conv2d", "out_channels": 32, "kernel_size": 1, "bias": false},
      {"type": "batchnorm2d", "eps": 0.001},
      {"type": "silu"},
      {"type": "conv2d", "out_channels": 32, "kernel_size": 3, "padding": 1, "groups": 32, "bias": false},
      {"type": "batchnorm2d", "eps": 0.001},
      {"type": "hardswish"},
      {"type": "squeeze_excitation", "squeeze_channels": 8, "scale_activation": "hardsigmoid"},
      {"type": "conv2d", "out_channels": 16, "kernel_size": 1, "bias": false},
      {"type": "batchnorm2d", "eps": 0.001},
      {"type": "stochastic_depth", "p": 0.2}]},
    {"type": "residual", "layers": [
      {"type": "conv2d", "out_channels": 16, "kernel_size": 7, "padding": 3, "groups": 16},
      {"type": "layernorm2d", "eps": 1e-6},
      {"type": "channel_linear", "out_features": 64},
      {"type": "gelu"},
      {"type": "channel_linear", "out_features": 16},
      {"type": "layer_scale", "init": 0.5},
      {"type": "stochastic_depth", "p": 0.1}]},
    {"type": "squeeze_excitation", "squeeze_channels": 4, "activation": "silu"},
    {"type": "hardsigmoid"},
    {"type": "adaptive_avgpool2d"},
    {"type": "flatten"},
    {"type": "layernorm", "eps": 1e-6},
    {"type": "linear", "out_features": 10}
  ])");
}

}  // namespace wb::test
