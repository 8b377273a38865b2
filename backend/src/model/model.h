#pragma once
// A trainable model the engine can inspect: either a network built from a layer list (the presets are such
// lists) or a TorchScript module loaded from a .pt file. Passes that come later (pruning, quantization,
// export) walk the layer list; the trainer only needs forward, parameters and save/load.

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

struct ModelInfo {
  int64_t parameters = 0;             // trainable parameter count
  int64_t flops_per_sample = 0;       // forward pass, multiply-adds counted as 2 FLOPs; 0 when unknown
  std::vector<int64_t> output_shape;  // without the batch dimension
  std::string summary;                // one line per layer: type, output shape, parameters
};

class Model {
 public:
  virtual ~Model() = default;
  virtual torch::Tensor forward(const torch::Tensor& x) = 0;
  virtual std::vector<torch::Tensor> parameters() = 0;
  // Names follow PyTorch's state_dict keys ("layers.0.weight"); used for weight-decay groups and checkpoints.
  virtual std::vector<std::pair<std::string, torch::Tensor>> namedParameters() = 0;
  virtual std::vector<std::pair<std::string, torch::Tensor>> namedBuffers() = 0;
  // The name each parameter and buffer has outside the workbench, keyed by the name above: torchvision's for
  // the standard architectures ("layer1.0.conv1.weight" for "layers.4.layers.0.weight"). A name the map lacks
  // is known outside as it is here. Weights files are matched, freeze patterns and parameter groups are
  // written, and the Model tab shows names, in these terms.
  virtual std::map<std::string, std::string> externalNames() const { return {}; }
  // The prefix a base model's weights file lacks (transformers' base_model_prefix, "bert."): a BertModel's
  // "embeddings.…" are this model's "bert.embeddings.…". Empty for a model without one.
  virtual std::string baseModelPrefix() const { return {}; }
  virtual void train(bool on) = 0;
  virtual void to(const torch::Device& device) = 0;
  // Saves / loads weights (and buffers) only; the architecture comes from the experiment.
  virtual void save(const std::string& file) = 0;
  virtual void load(const std::string& file) = 0;
  virtual ModelInfo info() const = 0;
};

// Builds the model of `config` for inputs of `input_shape` (no batch dimension) and `num_classes` outputs.
// Initialization is drawn from torch's global generator: seed it before calling. Throws wb::UserError for a
// layer list that does not fit the input (naming the layer's JSON path).
std::unique_ptr<Model> buildModel(const ModelConfig& config, const std::vector<int64_t>& input_shape,
                                  int64_t num_classes);

// The layer list of a preset for this input and class count (what buildModel uses for it).
nlohmann::json presetLayers(const std::string& preset, const std::vector<int64_t>& input_shape,
                            int64_t num_classes);

// The layer list `config` describes for this input: its own model.layers, or else its preset's (what
// buildModel builds; checks and estimates read it without building weights). A TorchScript model has none.
nlohmann::json layerListOf(const ModelConfig& config, const std::vector<int64_t>& input_shape,
                           int64_t num_classes);

// Checks a layer list against the input without allocating weights: types, parameters, shape transforms, and
// that the output is [num_classes]. Paths are reported as "model.layers[i]...". Empty when it fits.
std::vector<ValidationIssue> checkLayers(const nlohmann::json& layers,
                                         const std::vector<int64_t>& input_shape, int64_t num_classes);

// Every layer type the list may name (for docs and for "did you mean").
std::vector<std::string> layerTypes();

}  // namespace wb
