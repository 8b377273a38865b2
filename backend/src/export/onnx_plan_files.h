#pragma once
// An ONNX model plan as files, the way it crosses to the workbench-onnx-writer process: plan.json (the graph,
// attributes and metadata; each initializer as name, type, dims and its place in the blob) and
// initializers.bin (the initializers' raw bytes one after the other, streamed: a model's weights are never
// turned into JSON numbers). Reading checks everything a damaged or foreign folder could get wrong and says
// which file and which entry.

#include <string>

#include "export/onnx_model_plan.h"

namespace wb::onnx_export {

// Writes plan.json and initializers.bin into `folder` (which exists). UserError naming the file when a write
// fails (a full disk).
void writePlanFiles(const OnnxModelPlan& plan, const std::string& folder);

// The plan in `folder`; UserError naming the file and the entry at fault.
OnnxModelPlan readPlanFiles(const std::string& folder);

}  // namespace wb::onnx_export
