// summarizeModel (declared in workbench/model_summary.h): the layer table of an experiment's model, from the
// layer list's own shape and cost rules (the figures the run log prints), without weights.
#include "workbench/model_summary.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <memory>

#include "data/dataset.h"
#include "model/layer_list.h"
#include "model/layer_names.h"
#include "model/model.h"
#include "model/torchscript_model.h"
#include "train/frozen_parameters.h"
#include "util/default_cpu_generator.h"
#include "workbench/errors.h"

namespace wb {
namespace {

bool summaryFreezes(const Experiment& e) {
  return e.model.freeze_body || !e.model.freeze.empty();
}

// model.freeze applied to `model` by the run's own FrozenParameters (the same patterns, the same names, the
// same "body"); null, with the problem in `freeze_issues` at the pattern's path, when it refuses.
std::unique_ptr<FrozenParameters> summaryAppliesFreeze(ModelSummary& summary, const ModelConfig& config,
                                                       Model& model) {
  try {
    return std::make_unique<FrozenParameters>(config, model);
  } catch (const UserError& error) {
    std::string path = "model.freeze";
    std::string what = error.what();
    // "model.freeze[1]: ..." names the pattern at fault; "model.freeze freezes every ..." the key itself.
    if (what.rfind("model.freeze[", 0) == 0 && what.find("]: ") != std::string::npos) {
      path = what.substr(0, what.find("]: ") + 1);
      what = what.substr(path.size() + 2);
    }
    summary.freeze_issues.push_back({path, error.hint().empty() ? what : what + " (" + error.hint() + ")"});
    return nullptr;
  }
}

// Each row's frozen parameters: a parameter belongs to every row whose state-dict prefix it starts with (a
// branch layer's row and its residual's), and counts once in the totals.
// A row thaws (model.unfreeze) with the last of its frozen parameters' units. (Either every unit has an epoch
// or none has: model.unfreeze.after_epochs gives them all one.)
void summarizeFreezing(ModelSummary& summary, const Experiment& e) {
  std::unique_ptr<Model> model;
  {
    BorrowedDefaultCpuGenerator generator(e.seed);  // its initialization leaves a training run's draws alone
    model = buildModel(e.model, summary.input_shape, summary.num_classes);
  }
  const std::unique_ptr<FrozenParameters> frozen = summaryAppliesFreeze(summary, e.model, *model);
  if (!frozen) return;
  const auto parameters = model->namedParameters();
  for (size_t unit = 0; unit < frozen->unitCount(); ++unit) {
    const int64_t epoch = frozen->thawEpoch(unit);
    for (size_t index : frozen->unitParameters(unit)) {
      const auto& [name, tensor] = parameters[index];
      summary.frozen_parameters += tensor.numel();
      for (ModelSummaryRow& row : summary.rows) {
        if (name.rfind("layers." + row.name + ".", 0) != 0) continue;
        row.frozen += tensor.numel();
        row.thaw_epoch = std::max(row.thaw_epoch, epoch);
      }
    }
  }
  for (ModelSummaryRow& row : summary.rows) row.trainable = row.frozen == 0;
}

void appendRows(std::vector<ModelSummaryRow>& rows, const std::vector<LayerPtr>& layers, const Shape& input,
                const std::string& prefix, int depth, const NamePlace& list) {
  Shape current = input;
  for (size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = *layers[i];
    const NamePlace place = layerPlace(list, i, layer.naming());
    ModelSummaryRow row;
    row.name = prefix + std::to_string(i);
    row.type = layer.type();
    if (layer.naming().name) row.outside_name = place.outside;
    row.depth = depth;
    row.shape = layer.outputShape(current);
    row.parameters = layer.parameterCount(current);
    row.flops = layer.flopsPerSample(current);
    rows.push_back(row);
    // The branches follow their residual, named as their state-dict keys are ("3.layers.0", "3.shortcut.0").
    for (const auto& [branch, branchLayers] : layer.branches()) {
      appendRows(rows, *branchLayers, current, row.name + "." + branch + ".", depth + 1,
                 branchPlace(place, layer.naming(), branch));
    }
    current = row.shape;
  }
}

void summarizeLayers(ModelSummary& summary, const Experiment& e) {
  const bool preset = !e.model.layers.is_array();
  const std::string where = preset ? "model.preset" : "model.layers";
  nlohmann::json list;
  try {
    list = layerListOf(e.model, summary.input_shape, summary.num_classes);
  } catch (const UserError& error) {
    summary.issues.push_back({where, error.what()});
    return;
  }
  // The same checks as Start runs, so the table never shows a model the engine would refuse.
  summary.issues = checkLayers(list, summary.input_shape, summary.num_classes);
  if (preset) {
    for (ValidationIssue& issue : summary.issues)
      issue.path = "model.preset";  // as checkExperiment names them
  }
  if (!summary.ok()) return;
  std::vector<ValidationIssue> parse_issues;
  const std::vector<LayerPtr> layers = parseLayerList(list, "model.layers", parse_issues);
  if (!parse_issues.empty()) {
    summary.issues = parse_issues;
    return;
  }
  try {
    appendRows(summary.rows, layers, summary.input_shape, "", 0, modelListPlace());
    // The top-level list's output: the last row may belong to a residual's branch.
    const std::vector<Shape> shapes = inferShapes(layers, summary.input_shape, "layers");
    summary.output_shape = shapes.empty() ? summary.input_shape : shapes.back();
    summary.total_parameters = parameterCount(layers, summary.input_shape);
    summary.total_flops = flopsPerSample(layers, summary.input_shape);
  } catch (const ShapeError& error) {
    summary.rows.clear();
    summary.issues.push_back({where + (error.path().empty() ? "" : "." + error.path()), error.what()});
    return;
  }
  if (summaryFreezes(e)) summarizeFreezing(summary, e);
}

// A model without a layer list (a TorchScript module, a Hugging Face folder's): its parameters, one row each.
void summarizeParameters(ModelSummary& summary, const Experiment& e, const std::string& key,
                         const std::string& kind, const std::function<std::unique_ptr<Model>()>& build) {
  summary.torchscript = true;
  summary.parameters_only = kind;
  try {
    auto model = build();
    std::unique_ptr<FrozenParameters> frozen;
    if (summaryFreezes(e)) frozen = summaryAppliesFreeze(summary, e.model, *model);
    // A freeze refused for leaving nothing to train has frozen everything first: the model as written.
    if (summaryFreezes(e) && !frozen) model = build();
    for (const auto& [name, tensor] : model->namedParameters()) {
      ModelSummaryRow row;
      row.name = name;
      row.type = "parameter";
      row.shape = tensor.sizes().vec();
      row.parameters = tensor.numel();
      row.trainable = tensor.requires_grad();
      row.frozen = row.trainable ? 0 : row.parameters;
      summary.total_parameters += row.parameters;
      summary.frozen_parameters += row.frozen;
      summary.rows.push_back(std::move(row));
    }
    for (size_t unit = 0; frozen && unit < frozen->unitCount(); ++unit) {
      for (size_t index : frozen->unitParameters(unit))
        summary.rows[index].thaw_epoch = frozen->thawEpoch(unit);
    }
    summary.output_shape = model->info().output_shape;
  } catch (const UserError& error) {
    summary.issues.push_back({key, error.what()});
  }
}

}  // namespace

ModelSummary summarizeModel(const Experiment& experiment) {
  ModelSummary summary;
  try {
    const DataShape data = probeDataShape(experiment.data);
    summary.input_shape = data.sample_shape;
    summary.num_classes = data.num_classes;
  } catch (const UserError& error) {
    summary.issues.push_back({experiment.data.path.empty() ? "data.dataset" : "data.path", error.what()});
    return summary;
  }
  try {
    if (!experiment.model.huggingface.empty()) {
      summarizeParameters(summary, experiment, "model.huggingface", "Hugging Face", [&] {
        BorrowedDefaultCpuGenerator generator(experiment.seed);
        return buildModel(experiment.model, summary.input_shape, summary.num_classes);
      });
    } else if (!experiment.model.torchscript.empty()) {
      summarizeParameters(summary, experiment, "model.torchscript", "TorchScript",
                          [&]() -> std::unique_ptr<Model> {
                            return std::make_unique<TorchScriptModel>(
                                experiment.model.torchscript, summary.input_shape, summary.num_classes);
                          });
    } else {
      summarizeLayers(summary, experiment);
    }
  } catch (const std::exception& error) {
    // A model the rules above let through but LibTorch refuses (a TorchScript module that throws inside).
    summary.rows.clear();
    summary.issues.push_back({"model", error.what()});
  }
  if (!summary.ok()) {
    summary.rows.clear();
    summary.total_parameters = 0;
    summary.frozen_parameters = 0;
    summary.freeze_issues.clear();
    summary.total_flops = -1;
  }
  return summary;
}

}  // namespace wb
