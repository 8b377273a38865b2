#pragma once
// TorchScript export: a real torch::jit::Module built from the artifact's layer list, one submodule per layer
// with its parameters and buffers under their state-dict names ("layers.0.weight") and a forward written as
// TorchScript source, so the file loads with torch.jit.load (Python) and torch::jit::load (C++) and gives the
// engine's outputs. int8 artifacts keep their int8 kernels: each int8 layer holds the engine's packed weights
// (a serializable __torch__.torch.classes.quantized.*PackedParamsBase, re-packed at load for the quantized
// engine selected then) and calls quantized::conv2d(_relu) / linear(_relu) / linear(_relu)_dynamic /
// add(_relu).

#include <torch/script.h>

#include <map>
#include <string>

#include "compress/model_artifact.h"

namespace wb {

// The module of an artifact (a TorchScript-model artifact: its own module with the artifact's weights copied
// in). UserError naming the layer when one cannot be expressed, before anything is written.
torch::jit::Module torchScriptModule(const ModelArtifact& artifact);

// m.save(file, extra_files) with `extra_files` (name -> contents) stored beside the code.
void saveTorchScript(torch::jit::Module& module, const std::string& file,
                     const std::map<std::string, std::string>& extra_files);

}  // namespace wb
