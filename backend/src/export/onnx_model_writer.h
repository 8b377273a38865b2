#pragma once
// An ONNX model plan made into a file by ONNX's own C++ library (Debian's libonnx-dev): the ModelProto built
// from the plan, checked by onnx::checker and strict shape inference, serialized. No LibTorch here: this is
// the whole of the workbench-onnx-writer program (backend/src/onnx_writer/), and the Debian build's engine
// calls it in its own process. Only built with ONNX's library (WB_WITH_ONNX).

#include <string>

#include "export/onnx_model_plan.h"

namespace wb::onnx_export {

// The serialized ModelProto, with the value_info strict shape inference added. std::logic_error when the
// checker or shape inference refuses the plan, or the output does not infer as declared: the exporter's bug,
// never the user's (the emitters refuse what ONNX cannot express before a plan exists).
std::string serializeOnnxModel(OnnxModelPlan plan);

// serializeOnnxModel written to `path` atomically (the file whole or not at all).
void writeOnnxModelFile(OnnxModelPlan plan, const std::string& path);

}  // namespace wb::onnx_export
