#pragma once
// The model an experiment describes, layer by layer, computed without training and without allocating
// weights: what each layer outputs, its parameters and its forward FLOPs. The run log prints the same table
// when a run starts; the window shows it as the experiment is edited. Plain C++.

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

struct ModelSummaryRow {
  std::string
      name;  // the state-dict prefix of the layer ("3", "3.layers.0"); a parameter's name for TorchScript
  std::string type;  // the layer type ("conv2d"); "parameter" for a TorchScript model's rows
  // The layer's module path outside the workbench where its list names it (torchvision's "layer1.0.conv1" for
  // the resnet presets; docs/experiment.md, "Names outside"); empty for a layer without a name.
  std::string outside_name;
  int depth = 0;               // 0 for the model's own layers, 1 inside a residual's branches, ...
  std::vector<int64_t> shape;  // the layer's output for one sample; a TorchScript parameter's own shape
  int64_t parameters = 0;      // the layer's parameters (a residual's include its branches')
  // How many of `parameters` do not train: model.freeze picks them (as the run applies it, its unfreeze not
  // yet), or a TorchScript parameter has requires_grad false. A row is partly frozen when 0 < frozen <
  // parameters (a residual with one branch layer frozen, a pattern that picks weights and not biases).
  int64_t frozen = 0;
  bool trainable = true;  // every parameter of the row trains (frozen == 0)
  // model.unfreeze: the epoch from whose start all of the row's frozen parameters train (a block holding two
  // freeze patterns thaws with the later); 0 without model.unfreeze, or with nothing frozen.
  int64_t thaw_epoch = 0;
  int64_t flops = -1;  // forward FLOPs for one sample (multiply-adds count 2); -1 when unknown
};

struct ModelSummary {
  // Problems that keep the model from being summarized (a layer that does not fit its input, a missing
  // dataset or TorchScript file), with the JSON path at fault. When not empty, the rest is empty.
  std::vector<ValidationIssue> issues;
  // A TorchScript or Hugging Face model: rows are its parameters, not layers, and FLOPs are unknown;
  // parameters_only says which ("TorchScript", "Hugging Face").
  bool torchscript = false;
  std::string parameters_only;
  std::vector<int64_t> input_shape;  // one sample, without the batch dimension
  std::vector<int64_t> output_shape;
  int64_t num_classes = 0;
  std::vector<ModelSummaryRow> rows;  // in forward order; a residual's branch layers follow it
  int64_t total_parameters = 0;       // parameters of the whole model (nested rows counted once)
  int64_t frozen_parameters = 0;      // of them, those that do not train (model.freeze, TorchScript's own)
  // model.freeze's problems (a pattern that picks nothing, a freeze that leaves nothing to train), at their
  // paths. The table is still there, every row trainable: it lists the names to write a pattern from.
  std::vector<ValidationIssue> freeze_issues;
  int64_t total_flops = -1;  // per sample; -1 when unknown

  bool ok() const { return issues.empty(); }
};

// Reads only the dataset's headers (its sample shape and class count) and, for model.torchscript, loads the
// module. With model.freeze it builds the model (weights allocated) to apply the run's own freezing to it, so
// the frozen counts are the run's. Never throws for a bad experiment: the problem comes back in `issues` (or
// `freeze_issues`). Safe on any thread.
ModelSummary summarizeModel(const Experiment& experiment);

}  // namespace wb
