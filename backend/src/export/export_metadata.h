#pragma once
// What travels inside every exported file besides the weights, so the file runs elsewhere without guessing:
// the input shape, the normalization the model expects (x = (pixel/255 - mean) / std per channel or feature),
// an image folder's preprocessing (resize, center crop), the class names, the experiment's name, the
// artifact's name and its history of passes.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workbench/export.h"

namespace wb {

struct ModelArtifact;

struct ExportMetadata {
  std::vector<int64_t> input_shape;  // one sample, no batch dimension
  std::vector<double> mean;          // per channel (images) or feature (tables)
  std::vector<double> std;
  bool pixels_in_0_255 = false;  // uint8 images: the model expects (x / 255 - mean) / std
  std::vector<std::string> class_names;
  // Image folders: how a file becomes the input before the normalization, as torchvision's transforms say it
  // ({"convert": "RGB", "resize": 256, "center_crop": 224, "interpolation": "bilinear", "antialias": true});
  // null for the datasets whose samples come at the input's size.
  nlohmann::json preprocessing;
  std::string experiment_name;
  std::string artifact;  // "model" (the run's trained model) or "compressed/NN-<pass>"
  nlohmann::json history = nlohmann::json::array();

  // Flat string pairs, the form ONNX metadata_props, TorchScript extra files and safetensors __metadata__ all
  // take: "input_shape" -> "[1, 28, 28]", "normalization" -> JSON, "class_names" -> JSON list, ...
  std::map<std::string, std::string> asStrings() const;
};

// What every format carries: asStrings() plus what the model says of itself: num_classes, export_format,
// torch_version, layers and, for int8 models, quantized_engine and quantization (the integer ranges its
// scales assume, and every layer's activation qparams).
std::map<std::string, std::string> fileMetadata(const ExportMetadata& metadata, const ModelArtifact& artifact,
                                                ExportFormat format);

}  // namespace wb
