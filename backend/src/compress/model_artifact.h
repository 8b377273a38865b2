#pragma once
// A model as compression passes see it: the architecture (a layer list, or a TorchScript file), its float
// weights, the masks of unstructured pruning, the int8 form after quantization, and the history of passes
// that made it. A pass maps one artifact to another; the folder form (run/compressed/NN-<pass>/) is what
// eval, the report and export read. Every artifact reloads on its own from its folder.

#include <torch/torch.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/layer.h"
#include "model/model.h"

namespace wb {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

struct ModelArtifact {
  std::string name = "original";  // "original", "01-prune", ...
  std::string source;             // the artifact this one was made from ("" for the original)
  nlohmann::json layers;          // the layer list (null for a TorchScript model)
  std::string torchscript;        // a TorchScript model's file (null layers)
  Shape input_shape;              // one sample, no batch dimension
  int64_t num_classes = 0;
  // Float parameters by state-dict name ("layers.0.weight"), and buffers (batch-norm statistics). An int8
  // artifact keeps here only what stays float (layers without an int8 kernel, say).
  NamedTensors weights;
  NamedTensors buffers;
  // Unstructured pruning: parameter name -> mask (1 keep, 0 pruned, same shape and dtype as the weight). The
  // weights are already multiplied by them; training passes keep pruned entries at zero with them. On disk
  // only their names are kept: a mask is where its weight is not zero.
  NamedTensors masks;
  // null for a float model; otherwise what the int8 form needs (quantized_net.h): mode, engine, and per layer
  // the scales and zero points of its activations.
  nlohmann::json quantization;
  NamedTensors quantized;  // int8 weights and their per-channel scales and zero points
  nlohmann::json history = nlohmann::json::array();  // one record per pass, oldest first

  bool isQuantized() const { return !quantization.is_null(); }
  // The tensor called `name` in `weights` or `buffers` (undefined when absent).
  torch::Tensor tensor(const std::string& name) const;
};

// The artifact of a run's trained model: the run's experiment (its model section) for a sample shape and
// class count, and its model.pt. Throws UserError when the run has no model.
ModelArtifact loadRunModel(const std::string& run_dir, const Shape& input_shape, int64_t num_classes);

// The artifact of a model in memory (after training), with `layers` (null for TorchScript) as its
// architecture.
ModelArtifact artifactFromModel(Model& model, const nlohmann::json& layers, const std::string& torchscript,
                                const Shape& input_shape, int64_t num_classes);

// A float artifact as a trainable model with its weights copied in (on the CPU). UserError for an int8 one.
std::unique_ptr<Model> buildFloatModel(const ModelArtifact& artifact);

// Writes weights.pt, then artifact.json, each atomically, into `folder` (created if needed; a pass's logs and
// checkpoints may already be there). artifact.json comes last and marks the artifact complete: a folder
// without it is a pass that did not finish.
void saveArtifact(const ModelArtifact& artifact, const std::string& folder);
bool isCompleteArtifact(const std::string& folder);
// UserError naming the folder when it is not an artifact or a file is damaged.
ModelArtifact loadArtifact(const std::string& folder);

// What a forward pass needs, float or int8: evaluation, latency and distillation teachers use this.
class InferenceModel {
 public:
  virtual ~InferenceModel() = default;
  // [B, ...input_shape] float -> [B, classes] float logits, eval mode, no gradients.
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
};

std::unique_ptr<InferenceModel> makeInferenceModel(const ModelArtifact& artifact);

// Parameter values stored (int8 ones included) and those that are not exactly zero.
struct ParameterCounts {
  int64_t total = 0;
  int64_t nonzero = 0;
};
ParameterCounts countParameters(const ModelArtifact& artifact);

// The layer list parsed (throws UserError when it does not parse: an artifact written by another version).
std::vector<LayerPtr> artifactLayers(const ModelArtifact& artifact);

}  // namespace wb
