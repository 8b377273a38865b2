#pragma once
// ONNX export: an artifact's layers become a model plan (onnx_model_plan.h) through the emitters, and ONNX's
// own C++ library makes the file from it (onnx_model_writer.h) — in this process where the build's LibTorch
// shares Debian's protobuf with that library, else in the workbench-onnx-writer process (pip's LibTorch
// brings a protobuf of its own). Both run the same writer on the same plan and give the same bytes.

#include <string>

#include "compress/model_artifact.h"
#include "export/export_metadata.h"
#include "export/onnx_model_plan.h"

namespace wb {

// The plan of an artifact's file (opset 17, a dynamic batch dimension named "batch", input "input"
// [batch, ...input_shape] float32, output "logits" [batch, classes]; metadata as metadata_props). UserError
// naming the layer (and the formats that can take it) when ONNX export cannot express a layer.
onnx_export::OnnxModelPlan onnxModelPlan(const ModelArtifact& artifact, const ExportMetadata& metadata);

// The plan as an .onnx file at `path`, written whole or not at all, checked by onnx::checker and strict shape
// inference first: in-process when this build has ONNX's library beside its LibTorch, else by
// workbench-onnx-writer. UserError naming the file when it cannot be written or the writer is missing.
void writeOnnxModel(onnx_export::OnnxModelPlan plan, const std::string& path);

// The same through the workbench-onnx-writer program `writer`, whatever the build (the tests compare both
// ways): the plan goes to a folder beside `path` (removed afterwards), the writer's stderr becomes the
// UserError's message when it fails.
void writeOnnxModelThroughWriter(const onnx_export::OnnxModelPlan& plan, const std::string& path,
                                 const std::string& writer);

// The workbench-onnx-writer this engine runs: TORCH_WORKBENCH_ONNX_WRITER when set, else the program beside
// the running executable (installed), else the one of the build tree it was built in; "" when none exists or
// this build has none.
std::string onnxWriterExecutable();

// Whether this build writes ONNX in its own process (its LibTorch shares Debian's protobuf with ONNX).
bool onnxWriterInProcess();

// The serialized model of an artifact, as writeOnnxModel writes it (the tests read it).
std::string onnxModelBytes(const ModelArtifact& artifact, const ExportMetadata& metadata);

}  // namespace wb
