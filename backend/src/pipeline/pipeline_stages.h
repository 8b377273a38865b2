#pragma once
// train.pipeline's cut resolved against the model: which of the top-level layers (model.layers[i], a
// preset's list included) each stage runs, on which device. Only the top level is cut: a residual block and
// everything in it stay in one stage.
//
// A stage's layers are a range "first..last" or one layer, each end a layer's index ("0..5") or its name
// ("conv1..layer2"). A name may be a dotted prefix: "layer2" is every layer named "layer2" or "layer2.*"
// (torchvision's blocks layer2.0, layer2.1), the range starting at the first and ending at the last. Unnamed
// layers after a range's last named layer (a ResNet's relu after a block, its maxpool after bn1) belong to
// it, as they belong to that module in torchvision; an index end takes exactly that layer.

#include <torch/torch.h>

#include <string>
#include <vector>

#include "model/layer.h"
#include "workbench/experiment.h"

namespace wb {

struct StageRange {
  torch::Device device = torch::kCPU;
  size_t begin = 0;   // first top-level layer
  size_t end = 0;     // one past the last
  std::string label;  // "conv1..layer2 on cpu", for logs
};

// A device a pipeline's stages run on, and which of them (several stages may share one device).
struct StageDevice {
  torch::Device device = torch::kCPU;  // "cuda" as "cuda:0"
  std::vector<int64_t> stages;
};

// The stages of `pipeline` over `layers`. Throws wb::UserError listing every problem with its JSON path
// (train.pipeline.stages[i][1]): an unknown layer name (with "did you mean"), a range written backwards,
// stages out of the layers' order, layers in two stages or in none. "balanced" takes proposePipelineCut's
// cut (pipeline/pipeline_cut.h: the slowest stage's forward FLOPs for `input` as small as contiguous ranges
// allow). Devices are not checked here.
std::vector<StageRange> resolvePipelineStages(const PipelineConfig& pipeline,
                                              const std::vector<LayerPtr>& layers, const Shape& input);

}  // namespace wb
