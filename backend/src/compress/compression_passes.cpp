// runPass: one compression pass, from one artifact to the next. Training passes share the training phase;
// what differs (masks, gradual pruning, a teacher's loss) enters it as parts of its step.

#include <iomanip>
#include <sstream>

#include "compress/channel_pruning.h"
#include "compress/compression_pipeline.h"
#include "compress/distillation.h"
#include "compress/distillation_loss_part.h"
#include "compress/gradual_pruning_part.h"
#include "compress/magnitude_pruning.h"
#include "compress/pruning_mask_part.h"
#include "compress/qat_model.h"
#include "compress/quantization.h"
#include "compress/training_phase.h"
#include "data/batch_loader.h"
#include "model/layer_list.h"
#include "train/training_plan.h"
#include "workbench/errors.h"

namespace wb {
namespace {

std::string percent(double share) {
  std::ostringstream out;
  out << std::setprecision(3) << share * 100 << "%";
  return out.str();
}

// The parameters named by `targets`, from the model being trained.
std::vector<torch::Tensor> paramsFor(Model& model, const std::vector<PruneTarget>& targets) {
  const auto named = model.namedParameters();
  std::vector<torch::Tensor> params;
  for (const PruneTarget& t : targets) {
    auto it = std::find_if(named.begin(), named.end(), [&](const auto& p) { return p.first == t.name; });
    if (it == named.end()) throw std::logic_error("pruning target " + t.name + " is not a parameter of the model");
    params.push_back(it->second);
  }
  return params;
}

// Masks carried in from earlier passes, on the model's parameters, as the step parts of any training pass.
std::shared_ptr<PruningMasks> carriedMasks(Model& model, const NamedTensors& masks) {
  if (masks.empty()) return nullptr;
  std::vector<PruneTarget> targets;
  for (const auto& item : masks) targets.push_back({item.first, ""});
  return std::make_shared<PruningMasks>(targets, paramsFor(model, targets), masks);
}

void addMaskPart(TrainingPhase& phase, const std::shared_ptr<PruningMasks>& masks) {
  if (masks) phase.parts.add(std::make_shared<PruningMaskPart>(masks));
}

TrainingPhase makePhase(const CompressPassConfig& pass, PassContext& c) {
  return TrainingPhase{c.experiment, pass, c.data, c.device, c.folder, c.events, c.pipeline_recorder, c.control, {}};
}

// Trains `model` in the pass's phase; false when a stop request ended it early.
bool train(TrainingPhase& phase, Model& model, nlohmann::json& record) {
  model.to(phase.device);
  const RankOutcome outcome = runTrainingPhase(phase, model);
  record["fine_tuning"] = {{"steps", outcome.steps}, {"epochs", outcome.epochs},
                           {"best_val_accuracy", outcome.best_val_accuracy}};
  model.to(torch::kCPU);
  return outcome.status != RunStatus::Interrupted;
}

ModelArtifact withWeights(const ModelArtifact& shape_of, Model& model) {
  ModelArtifact out =
      artifactFromModel(model, shape_of.layers, shape_of.torchscript, shape_of.input_shape, shape_of.num_classes);
  out.masks = shape_of.masks;
  return out;
}

// The input trained for the pass's phase, masks from earlier passes kept (finetune, and a structured prune's
// fine-tuning).
ModelArtifact fineTuned(const CompressPassConfig& pass, const ModelArtifact& input, PassContext& c,
                        nlohmann::json& record, bool& stopped) {
  auto model = buildFloatModel(input);
  auto masks = carriedMasks(*model, input.masks);
  TrainingPhase phase = makePhase(pass, c);
  addMaskPart(phase, masks);
  stopped = !train(phase, *model, record);
  ModelArtifact out = withWeights(input, *model);
  if (masks) out.masks = masks->masks();
  return out;
}

ModelArtifact prune(const CompressPassConfig& pass, const ModelArtifact& input, PassContext& c,
                    nlohmann::json& record, bool& stopped) {
  record["method"] = pass.method;
  record["amount"] = pass.amount;
  if (pass.method == "structured") {
    nlohmann::json channels = nlohmann::json::object();
    ModelArtifact smaller = pruneChannels(input, pass, channels);
    record["channels"] = channels;
    if (pass.epochs == 0 && pass.max_steps == 0) return smaller;
    return fineTuned(pass, smaller, c, record, stopped);
  }
  auto model = buildFloatModel(input);
  const std::vector<PruneTarget> targets = selectPruneTargets(input, pass);
  auto masks = std::make_shared<PruningMasks>(targets, paramsFor(*model, targets), input.masks);
  const bool global = pass.scope == "global";
  const bool gradual = pass.schedule == "gradual";
  const double initial = masks->sparsity();
  const double target = initial + pass.amount * (1.0 - initial);
  if (!gradual) masks->pruneShareOfLive(pass.amount, global);
  if (pass.epochs > 0 || pass.max_steps > 0) {
    TrainingPhase phase = makePhase(pass, c);
    if (gradual) {
      const Experiment e = phaseExperiment(c.experiment, pass);
      const int64_t total = planTraining(e.train, c.data.train_x.size(0)).total_steps;
      // Zhu & Gupta prune every Δt steps; twenty raises over the phase keep each jump small.
      const int64_t every = std::max<int64_t>(1, total / 20);
      // Before the masks' part: it raises them, the masks' part applies them to the weights.
      phase.parts.add(std::make_shared<GradualPruningPart>(
          masks, GradualPruningSchedule{initial, target, total, every, global}));
      record["schedule"] = {{"kind", "cubic"}, {"steps", total}, {"every", every}, {"initial", initial}};
    }
    addMaskPart(phase, masks);
    stopped = !train(phase, *model, record);
    if (stopped) return input;
    if (gradual) masks->pruneTo(target, global);  // a run cut short by max_steps still reaches the target
  }
  record["masks"] = masks->describe();
  ModelArtifact out = withWeights(input, *model);
  out.masks = masks->masks();  // the weights hold w × mask already: the masks are kept for later training
  return out;
}

ModelArtifact distill(const CompressPassConfig& pass, const ModelArtifact& input, PassContext& c,
                      nlohmann::json& record, bool& stopped) {
  std::shared_ptr<Teacher> teacher = loadTeacher(pass.teacher, c.run_dir, c.original);
  teacher->to(c.device);
  ModelArtifact student_shape = input;
  std::unique_ptr<Model> student;
  if (pass.student.is_null()) {
    student = buildFloatModel(input);
  } else {
    // A new model from the pass's model section, initialized from the run's seed like a run would be.
    const ParseResult parsed = parseExperiment(nlohmann::json{{"model", pass.student}});
    if (!parsed.ok()) throw UserError("compress: the distill pass's student: " + formatIssues(parsed.issues));
    const ModelConfig& config = parsed.experiment.model;
    torch::manual_seed(c.experiment.seed);
    student = buildModel(config, input.input_shape, input.num_classes);
    student_shape.layers = config.torchscript.empty()
                               ? (config.layers.is_null() ? presetLayers(config.preset, input.input_shape, input.num_classes)
                                                          : config.layers)
                               : nlohmann::json();
    student_shape.torchscript = config.torchscript;
    student_shape.masks.clear();
    record["student"] = pass.student;
  }
  auto masks = carriedMasks(*student, student_shape.masks);
  TrainingPhase phase = makePhase(pass, c);
  const double t = pass.temperature;
  const double alpha = pass.alpha;
  phase.parts.add(std::make_shared<DistillationLossPart>(teacher, t, alpha));
  addMaskPart(phase, masks);
  record["teacher"] = teacher->description();
  record["temperature"] = t;
  record["alpha"] = alpha;
  stopped = !train(phase, *student, record);
  ModelArtifact out = withWeights(student_shape, *student);
  if (masks) out.masks = masks->masks();
  return out;
}

// Quantization-aware training: fake-quantized fine-tuning (a normal training phase), then conversion to int8
// with the ranges the observers learned.
ModelArtifact quantizeAware(const CompressPassConfig& pass, const ModelArtifact& input, PassContext& c,
                            nlohmann::json& record, bool& stopped) {
  auto log = [&c](const std::string& line) { c.events.log(LogLevel::Info, line); };
  std::unique_ptr<Model> model = makeQatModel(input, pass, log);
  // Weights pruned by an earlier pass stay pruned while quantization-aware training moves the others (folding
  // a batch norm scales a filter, so its zeros stay zeros).
  auto masks = carriedMasks(*model, input.masks);
  TrainingPhase phase = makePhase(pass, c);
  addMaskPart(phase, masks);
  stopped = !train(phase, *model, record);
  if (stopped) return input;
  QuantizeResult result = convertQatModel(*model, pass, log);
  record["mode"] = pass.mode;
  record["engine"] = result.engine;
  record["float_layers"] = result.float_layers;
  record["observer"] = "moving-average min/max (quantization-aware training)";
  result.artifact.masks.clear();
  return result.artifact;
}

ModelArtifact quantize(const CompressPassConfig& pass, const ModelArtifact& input, PassContext& c,
                       nlohmann::json& record) {
  // Calibration reads training batches in the order a run's first epoch would, without augmentation.
  BatchLoaderOptions options;
  options.batch_size = c.experiment.train.batch_size;
  options.shuffle = true;
  options.seed = c.experiment.seed;
  options.prefetch = 0;
  BatchLoader loader(c.data.train_x, c.data.train_y, options);
  loader.startEpoch(1, 0);
  auto calibration = [&loader]() -> std::optional<torch::Tensor> {
    std::optional<Batch> batch = loader.next();
    if (!batch) return std::nullopt;
    return batch->x;
  };
  QuantizeResult result =
      quantizeArtifact(input, pass, calibration, [&c](const std::string& line) { c.events.log(LogLevel::Info, line); });
  record["mode"] = pass.mode;
  record["engine"] = result.engine;
  record["float_layers"] = result.float_layers;
  if (pass.mode == "static") record["observer"] = pass.observer;
  result.artifact.masks.clear();  // int8 models are not trained: masks have no further use
  return result.artifact;
}

}  // namespace

std::string describePass(const CompressPassConfig& p) {
  std::ostringstream out;
  if (p.type == "prune") {
    if (p.method == "structured") {
      out << "structured " << (p.norm == "l1" ? "L1" : "L2") << " pruning of " << percent(p.amount)
          << " of the channels";
    } else {
      out << (p.scope == "global" ? "global" : "per-layer") << " unstructured L1 pruning of " << percent(p.amount)
          << " of the weights" << (p.schedule == "gradual" ? ", gradual" : "");
    }
  } else if (p.type == "finetune") {
    out << "fine-tuning";
  } else if (p.type == "distill") {
    out << "distillation from " << p.teacher << " (T " << p.temperature << ", alpha " << p.alpha << ")";
  } else {
    out << (p.mode == "qat" ? "quantization-aware training, then static" : p.mode) << " int8 quantization";
  }
  if ((p.type != "quantize" || p.mode == "qat") && (p.epochs > 0 || p.max_steps > 0)) {
    if (p.type == "prune") out << ", fine-tuned";
    out << " for " << (p.max_steps > 0 ? std::to_string(p.max_steps) + " steps" : std::to_string(p.epochs) + " epoch(s)");
  }
  return out.str();
}

ModelArtifact runPass(const CompressPassConfig& pass, const ModelArtifact& input, PassContext& context,
                      nlohmann::json& record, bool& stopped) {
  stopped = false;
  record["pass"] = compressPassToJson(pass);
  record["description"] = describePass(pass);
  if (pass.type == "prune") return prune(pass, input, context, record, stopped);
  if (pass.type == "finetune") return fineTuned(pass, input, context, record, stopped);
  if (pass.type == "distill") return distill(pass, input, context, record, stopped);
  if (pass.mode == "qat") return quantizeAware(pass, input, context, record, stopped);
  return quantize(pass, input, context, record);
}

}  // namespace wb
