// checkExperiment (declared in workbench/experiment.h): the checks that need the engine, run before training.
#include <algorithm>
#include <filesystem>

#include "data/dataset.h"
#include "distributed/device_selection.h"
#include "model/huggingface/text_classifier_config.h"
#include "model/layer_list.h"
#include "model/model.h"
#include "optim/lr_schedule.h"
#include "optim/parameter_groups.h"
#include "parallel/shard_checks.h"
#include "pipeline/pipeline_stages.h"
#include "run_folder/run_folder.h"
#include "text/tokenizer_files.h"
#include "train/frozen_parameters.h"
#include "train/training_plan.h"
#include "util/default_cpu_generator.h"
#include "workbench/errors.h"
#include "workbench/experiment.h"
#include "workbench/weights_load_report.h"

namespace wb {
namespace {

// The training loop applies train.amp (autocast, loss scaling); kept as a switch so a trainer that cannot
// (a future backend) refuses it at validation instead of silently training in float32.
constexpr bool kTrainerHonoursAmp = true;

// model.weights loaded into the model as the run would (read, matched, refused): a file that does not fit is
// found before a run folder exists. Its message starts with the key it is about.
void checkWeightsLoad(const Experiment& e, std::vector<ValidationIssue>& issues) {
  try {
    (void)previewWeightsLoad(e);
  } catch (const UserError& err) {
    std::string what = err.what();
    std::string key = "model.weights";
    for (const std::string k : {"model.weights_prefix", "model.weights"}) {
      if (what.rfind(k + ": ", 0) == 0) {
        key = k;
        what = what.substr(k.size() + 2);
        break;
      }
    }
    issues.push_back({key, err.hint().empty() ? what : what + " (" + err.hint() + ")"});
  }
}

// model.freeze's and optimizer.param_groups's patterns against the model's names, as the run applies them.
// The message starts with the path of the pattern at fault ("model.freeze[1]: ...").
void checkParameterPatterns(const Experiment& e, const DataShape& shape,
                            std::vector<ValidationIssue>& issues) {
  const bool freezes = e.model.freeze_body || !e.model.freeze.empty();
  if (!freezes && e.optimizer.param_groups.empty()) return;
  try {
    std::unique_ptr<Model> model;
    {
      BorrowedDefaultCpuGenerator generator(
          e.seed);  // its initialization leaves a training run's draws alone
      model = buildModel(e.model, shape.sample_shape, shape.num_classes);
    }
    if (freezes) FrozenParameters frozen(e.model, *model);
    std::vector<std::string> names;
    for (const auto& named : model->namedParameters()) names.push_back(named.first);
    (void)assignParameterGroups(e.optimizer.param_groups, names, model->externalNames());
  } catch (const UserError& err) {
    std::string what = err.what();
    std::string path = freezes ? "model.freeze" : "optimizer.param_groups";
    const size_t colon = what.find(": ");
    const bool located = what.rfind("model.freeze", 0) == 0 || what.rfind("optimizer.param_groups", 0) == 0;
    if (located && colon != std::string::npos) {
      path = what.substr(0, colon);
      what = what.substr(colon + 2);
    }
    issues.push_back({path, what});
  }
}

// A Hugging Face folder builds for the data, and its tokenizer's ids fit the model's embedding: a tokenizer
// of another model gives ids the model has no row for (or the wrong rows).
void checkHuggingFaceModel(const Experiment& e, const DataShape* shape,
                           std::vector<ValidationIssue>& issues) {
  try {
    const auto module = buildTextClassifier(e.model.huggingface);
    const int64_t vocabulary = module->shape().vocab_size;
    if (shape) {
      BorrowedDefaultCpuGenerator generator(e.seed);
      (void)buildModel(e.model, shape->sample_shape, shape->num_classes);
    }
    if (!e.data.text.tokenizer.empty()) {
      const int64_t ids = text::loadTokenizer(e.data.text.tokenizer)->vocabularySize();
      if (ids > vocabulary) {
        issues.push_back(
            {"data.text.tokenizer",
             e.data.text.tokenizer + " gives ids up to " + std::to_string(ids - 1) + " but " +
                 e.model.huggingface + "/config.json's vocab_size is " + std::to_string(vocabulary) +
                 ": the tokenizer is another model's (use the tokenizer of the model's folder)"});
      }
    }
  } catch (const UserError& err) {
    const std::string what = err.what();
    const bool located = what.rfind("data.text", 0) == 0;
    issues.push_back({located ? what.substr(0, what.find(':')) : std::string("model.huggingface"),
                      located ? what.substr(what.find(':') + 2) : what});
  }
}

// The model fits the data (`shape`, null when the data could not be read), and model.freeze's and
// optimizer.param_groups's patterns pick parameters of it.
void checkModel(const Experiment& e, const DataShape* shape, std::vector<ValidationIssue>& issues) {
  if (!e.model.huggingface.empty()) {
    checkHuggingFaceModel(e, shape, issues);
  } else if (!e.model.torchscript.empty()) {
    if (!std::filesystem::exists(e.model.torchscript)) {
      issues.push_back({"model.torchscript", "file not found: " + e.model.torchscript});
    }
  } else if (shape) {
    try {
      const nlohmann::json layers = layerListOf(e.model, shape->sample_shape, shape->num_classes);
      for (auto& issue : checkLayers(layers, shape->sample_shape, shape->num_classes)) {
        if (!e.model.layers.is_array()) issue.path = "model.preset";
        issues.push_back(std::move(issue));
      }
    } catch (const UserError& err) {
      issues.push_back({e.model.layers.is_array() ? "model.layers" : "model.preset", err.what()});
    }
  }

  if (shape && issues.empty()) checkParameterPatterns(e, *shape, issues);
}

// train.pipeline's cut against the model's layers, resolved as the run resolves it (layer descriptions only,
// no weights): an unknown layer, one in two stages or in none is refused before a run folder exists, each at
// its stage's path ("train.pipeline.stages[1][1]: ...").
void checkPipelineCut(const Experiment& e, const DataShape& shape, std::vector<ValidationIssue>& issues) {
  if (!e.train.pipeline.enabled || !e.model.torchscript.empty() || !e.model.huggingface.empty()) return;
  try {
    const nlohmann::json list = layerListOf(e.model, shape.sample_shape, shape.num_classes);
    std::vector<ValidationIssue> parse_issues;
    const std::vector<LayerPtr> layers = parseLayerList(list, "model.layers", parse_issues);
    if (!parse_issues.empty()) return;  // checkModel has said so
    (void)resolvePipelineStages(e.train.pipeline, layers, shape.sample_shape);
  } catch (const UserError& err) {
    std::string text = err.what();
    size_t start = 0;
    while (start < text.size()) {
      const size_t end = std::min(text.find('\n', start), text.size());
      std::string line = text.substr(start, end - start);
      start = end + 1;
      const size_t colon = line.find(": ");
      std::string path = "train.pipeline.stages";
      if (line.rfind("train.pipeline", 0) == 0 && colon != std::string::npos) {
        path = line.substr(0, colon);
        line = line.substr(colon + 2);
      }
      issues.push_back({path, line});
    }
  }
}

}  // namespace

std::vector<ValidationIssue> checkExperiment(const Experiment& e) {
  std::vector<ValidationIssue> issues;
  for (size_t i = 0; i < e.train.devices.size(); ++i) {
    const std::string problem = checkDevice(e.train.devices[i]);
    if (!problem.empty()) issues.push_back({"train.devices[" + std::to_string(i) + "]", problem});
  }
  // Several entries are data parallel, one rank each: they must be able to train together.
  for (auto& issue : checkDeviceSet(e.train.devices)) issues.push_back(std::move(issue));
  for (auto& issue : checkShard(e)) issues.push_back(std::move(issue));
  const std::string amp_problem = checkAmp(e.train.amp, e.train.devices);
  if (!amp_problem.empty()) issues.push_back({"train.amp", amp_problem});
  if (amp_problem.empty() && e.train.amp != Precision::Off && !kTrainerHonoursAmp) {
    issues.push_back({"train.amp", "mixed precision (\"" + wordString(e.train.amp) +
                                       "\") is not available in this version yet; use \"off\""});
  }

  DataShape shape;
  bool have_shape = false;
  try {
    shape = probeDataShape(e.data);
    have_shape = true;
  } catch (const UserError& err) {
    issues.push_back({e.data.path.empty() ? "data.dataset" : "data.path", err.what()});
  }
  if (have_shape && e.data.limit > 0 && e.data.limit < shape.train_samples)
    shape.train_samples = e.data.limit;
  if (have_shape) {
    const int64_t val = static_cast<int64_t>(std::llround(e.data.val_fraction * shape.train_samples));
    if (shape.train_samples - val < 1) {
      issues.push_back(
          {"data.val_fraction", "leaves no training samples out of " + std::to_string(shape.train_samples)});
    } else {
      // The schedule against the run's real length: the steps come from the data (as the run counts them,
      // each rank's shard with several devices), so `check` refuses what `train` would, before any run folder
      // exists.
      const int64_t ranks = std::max<int64_t>(1, static_cast<int64_t>(e.train.devices.size()));
      const TrainingPlan plan = planTraining(e.train, (shape.train_samples - val + ranks - 1) / ranks);
      try {
        const LrSchedule schedule(e.schedule, e.optimizer.lr, plan.total_steps);
        (void)schedule;
      } catch (const UserError& err) {
        std::string what = err.what();
        if (e.schedule.warmup_steps > 0 && e.schedule.warmup_steps >= plan.total_steps) {
          what += ": this run has " + std::to_string(plan.total_steps) + " steps (" +
                  std::to_string(plan.epochs) + " epoch(s) of " + std::to_string(plan.steps_per_epoch) +
                  ") and " + std::to_string(e.schedule.warmup_steps) +
                  " warmup steps; lower schedule.warmup_steps below " + std::to_string(plan.total_steps) +
                  " or train longer (train.epochs, data.limit)";
          issues.push_back({"schedule.warmup_steps", what});
        } else {
          issues.push_back(
              {"schedule", what + " (the run has " + std::to_string(plan.total_steps) + " steps)"});
        }
      }
    }
  }

  checkModel(e, have_shape ? &shape : nullptr, issues);
  if (have_shape && issues.empty()) checkPipelineCut(e, shape, issues);
  if ((!e.model.weights.empty() || !e.model.huggingface.empty()) && have_shape && issues.empty()) {
    checkWeightsLoad(e, issues);
  }

  const std::string runs_problem = checkRunsDirWritable(e.output.runs_dir);
  if (!runs_problem.empty()) issues.push_back({"output.runs_dir", runs_problem});
  return issues;
}

}  // namespace wb
