#pragma once
#include <string>

#include "compress/model_artifact.h"
#include "export/export_metadata.h"
namespace wb {
// The serialized ModelProto of an artifact (opset 13+, a dynamic batch dimension named "batch", input
// "input" [batch, ...input_shape] float32, output "logits" [batch, classes]), checked with
// onnx::checker::check_model and full shape inference before it is returned; metadata as metadata_props.
// UserError naming the layer (and the formats that can take it) when ONNX export cannot express a layer.
std::string onnxModelBytes(const ModelArtifact& artifact, const ExportMetadata& metadata);
}  // namespace wb
