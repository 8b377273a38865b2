#pragma once
// proposePipelineCut: where to cut a model's top-level layer list into one contiguous stage per device, so
// that the slowest stage (the pipeline's pace) is as fast as it can be while every stage's training state
// fits its device. Plain C++ over the model summary's figures (workbench/model_summary.h): no weights, no
// Torch.

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/model_summary.h"

namespace wb {

// One top-level layer as the cut sees it (a residual with its branches is one layer: a stage holds it whole).
struct PipelineLayerCost {
  std::string name;             // the summary row's name ("3"), or a module path outside the workbench
  int64_t parameters = 0;       // trainable or not: every parameter sits on the stage's device
  int64_t flops = -1;           // forward FLOPs per sample; -1 when unknown
  int64_t output_elements = 0;  // the layer's output per sample (kept for the backward pass)
};

struct PipelineCutRequest {
  std::vector<PipelineLayerCost> layers;  // in forward order
  int devices = 2;                        // one stage per device
  // Bytes each device can hold, one per device in stage order; empty, or 0 for a device, means no limit.
  std::vector<int64_t> device_memory;
  // A parameter's bytes on its stage: the weight, its gradient and the optimizer's state (16 for fp32 AdamW:
  // weight 4, gradient 4, two moments 8). training_memory.h computes it per optimizer.
  int64_t bytes_per_parameter = 16;
  // Bytes per activation element, and the samples a stage keeps activations for at once: GPipe keeps every
  // micro-batch's until the backward pass, so the whole batch.
  int64_t bytes_per_activation = 4;
  int64_t batch = 1;
  // Samples each stage keeps instead of `batch`, one per device (1F1B keeps fewer on the later stages:
  // training_memory.cpp); empty: `batch` on every stage.
  std::vector<int64_t> stage_samples;
};

struct PipelineStage {
  size_t first = 0;  // index of the stage's first layer in the request
  size_t last = 0;   // its last layer, inclusive
  std::string first_name, last_name;
  int64_t parameters = 0;
  int64_t flops = 0;  // per sample, the layers' known FLOPs
  // parameters × bytes_per_parameter + outputs × the stage's samples × bytes_per_activation
  int64_t memory_bytes = 0;
};

struct PipelineCut {
  // Empty when the cut exists; otherwise why not (more devices than layers, a layer too large for any device,
  // no contiguous cut fitting the devices' memory), said so that a person can act on it.
  std::string problem;
  std::vector<PipelineStage> stages;
  // What "time" balanced: the layers' FLOPs, or their parameters where a layer's FLOPs are unknown (a
  // TorchScript module's), which the figures then say.
  bool balanced_by_flops = true;
  int64_t slowest_stage = 0;  // the largest stage's FLOPs (or parameters): the pipeline's step pace

  bool ok() const { return problem.empty(); }
};

// The cut minimizing the slowest stage under the memory limits; among cuts as fast, the one whose stages are
// most even (least sum of squared stage times); among those, the earliest cut points. Deterministic: the same
// request gives the same cut on every machine.
PipelineCut proposePipelineCut(const PipelineCutRequest& request);

// The summary's top-level rows (depth 0) as the cut's layers; empty for a TorchScript model, whose rows are
// parameters and which cannot be cut.
std::vector<PipelineLayerCost> pipelineLayers(const ModelSummary& summary);

}  // namespace wb
