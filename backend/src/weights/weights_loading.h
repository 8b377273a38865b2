#pragma once
// model.weights (issue 40): the weights file read, its names matched against the model's outside names
// (Model::externalNames: torchvision's for the standard architectures), a prefix stripped, a classifier head
// whose class count changed left at its fresh initialization, and every tensor accounted for in a
// WeightsLoadReport. Nothing is copied unless the whole match is accepted: a refusal leaves the model as
// built.

#include <string>

#include "model/model.h"
#include "weights/weights_reader.h"
#include "workbench/experiment.h"
#include "workbench/weights_load_report.h"

namespace wb {

struct ModelWeightsSource {
  std::string weights;  // model.weights as given
  std::string file;     // the file read
  std::string format;   // weightsFormatWord, or "workbench-checkpoint"
  WeightsFileContents contents;
};

// Reads what model.weights names: a weights file (readWeightsFile), a checkpoint of ours (its model's
// tensors, by `model`'s names), or a run folder of ours (its model.pt, else its newest intact checkpoint).
// Throws UserError prefixed "model.weights: " naming the file.
ModelWeightsSource readModelWeights(const std::string& weights, Model& model);

// Matches `source` against `model` and copies what fits into the model's tensors (dtype converted to the
// model's, device and memory format kept). `architecture` names the model in a refusal ("resnet18").
// Throws UserError (nothing copied) when nothing matches, or when anything besides a replaced head does not
// fit and config.weights_mismatch is refuse.
WeightsLoadReport loadModelWeights(Model& model, const ModelWeightsSource& source, const ModelConfig& config,
                                   const std::string& architecture);

// What a fresh run starts from: model.weights, else a Hugging Face folder's weights file
// (model.huggingface), else "" (the fresh initialization). UserError naming the folder when it has none.
std::string startingWeightsOf(const ModelConfig& config);

// "resnet18", "a layer list", "model.torchscript's module": how a refusal names the model.
std::string describeArchitecture(const ModelConfig& config);

}  // namespace wb
