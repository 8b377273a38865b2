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
    if (it == named.end())
      throw std::logic_error("pruning target " + t.name + " is not a parameter of the model");
    params.push_back(it->second);
  }
  return params;
}

// Masks carried in from earlier passes, on the model's parameters, as the step parts of any training pass.
std::shared_ptr<PruningMasks> carriedMasks(Model& model, const NamedTensors& masks) {
  if (masks.empty()) return nullptr;
  std::vector<PruneTarget> targets;
  for (const auto& item : masks) targets.push_back({item.first, std::nullopt});
  return std::make_shared<PruningMasks>(targets, paramsFor(model, targets), masks);
}

// The masks one rank trains with: rank 0 the pass's own (they become the artifact's), each other rank a copy
// on its replica (the same weights stay pruned everywhere, and gradual pruning raises them alike: the ranks'
// weights are equal after every step).
std::shared_ptr<PruningMasks> masksOfRank(int rank, const std::shared_ptr<PruningMasks>& lead, Model& model) {
  if (!lead || rank == 0) return lead;
  return std::make_shared<PruningMasks>(lead->targets(), paramsFor(model, lead->targets()), lead->masks());
}

StepParts maskParts(const std::shared_ptr<PruningMasks>& masks) {
  StepParts parts;
  if (masks) parts.add(std::make_shared<PruningMaskPart>(masks));
  return parts;
}

// A phase whose ranks other than 0 train replicas that `make_replica` builds, with the masks carried in.
TrainingPhase makePhase(const CompressPassConfig& pass, PassContext& c,
                        std::function<std::unique_ptr<Model>()> make_replica,
                        const std::shared_ptr<PruningMasks>& masks) {
  return TrainingPhase{
      .run_experiment = c.experiment,
      .pass = pass,
      .data = c.data,
      .device = c.device,
      .folder = c.folder,
      .events = c.events,
      .outer_recorder = c.pipeline_recorder,
      .control = c.control,
      .parts_for = [masks](int rank, Model& model,
                           torch::Device) { return maskParts(masksOfRank(rank, masks, model)); },
      .make_replica = std::move(make_replica)};
}

// Trains `model` in the pass's phase; false when a stop request ended it early.
bool train(TrainingPhase& phase, Model& model, nlohmann::json& record) {
  model.to(phase.device);
  const RankOutcome outcome = runTrainingPhase(phase, model);
  record["fine_tuning"] = {
      {"steps", outcome.steps}, {"epochs", outcome.epochs}, {"best_val_accuracy", outcome.best_val_accuracy}};
  model.to(torch::kCPU);
  return outcome.status != RunStatus::Interrupted;
}

ModelArtifact withWeights(const ModelArtifact& shape_of, Model& model) {
  ModelArtifact out = artifactFromModel(model, shape_of.layers, shape_of.torchscript, shape_of.input_shape,
                                        shape_of.num_classes);
  out.masks = shape_of.masks;
  return out;
}

// The input trained for the pass's phase, masks from earlier passes kept (finetune, and a structured prune's
// fine-tuning).
ModelArtifact fineTuned(const CompressPassConfig& pass, const ModelArtifact& input, PassContext& c,
                        nlohmann::json& record, bool& stopped) {
  auto model = buildFloatModel(input);
  auto masks = carriedMasks(*model, input.masks);
  TrainingPhase phase = makePhase(
      pass, c, [&input] { return buildFloatModel(input); }, masks);
  stopped = !train(phase, *model, record);
  ModelArtifact out = withWeights(input, *model);
  if (masks) out.masks = masks->masks();
  return out;
}

ModelArtifact prune(const CompressPassConfig& pass, const ModelArtifact& input, PassContext& c,
                    nlohmann::json& record, bool& stopped) {
  record["method"] = wordString(pass.method);
  record["amount"] = pass.amount;
  if (pass.method == PruneMethod::Structured) {
    nlohmann::json channels = nlohmann::json::object();
    ModelArtifact smaller = pruneChannels(input, pass, channels);
    record["channels"] = channels;
    if (pass.epochs == 0 && pass.max_steps == 0) return smaller;
    return fineTuned(pass, smaller, c, record, stopped);
  }
  auto model = buildFloatModel(input);
  const std::vector<PruneTarget> targets = selectPruneTargets(input, pass);
  auto masks = std::make_shared<PruningMasks>(targets, paramsFor(*model, targets), input.masks);
  const bool global = pass.scope == PruneScope::Global;
  const bool gradual = pass.schedule == PruneSchedule::Gradual;
  const double initial = masks->sparsity();
  const double target = initial + pass.amount * (1.0 - initial);
  if (!gradual) masks->pruneShareOfLive(pass.amount, global);
  if (pass.epochs > 0 || pass.max_steps > 0) {
    TrainingPhase phase = makePhase(
        pass, c, [&input] { return buildFloatModel(input); }, masks);
    if (gradual) {
      const int64_t total = phaseTotalSteps(c.experiment, pass, c.data.train.size());
      // Zhu & Gupta prune every Δt steps; twenty raises over the phase keep each jump small.
      const GradualPruningSchedule schedule{initial, target, total, std::max<int64_t>(1, total / 20), global};
      phase.parts_for = [masks, schedule](int rank, Model& model, torch::Device) {
        const auto mine = masksOfRank(rank, masks, model);
        // Before the masks' part: it raises them, the masks' part applies them to the weights.
        return StepParts().add(std::make_shared<GradualPruningPart>(mine, schedule)).add(maskParts(mine));
      };
      record["schedule"] = {
          {"kind", "cubic"}, {"steps", total}, {"every", schedule.every}, {"initial", initial}};
    }
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
  std::function<std::unique_ptr<Model>()> make_student = [&input] { return buildFloatModel(input); };
  if (!pass.student.is_null()) {
    // A new model from the pass's model section, initialized from the run's seed like a run would be.
    const ParseResult parsed = parseExperiment(nlohmann::json{{"model", pass.student}});
    if (!parsed.ok()) throw UserError("compress: the distill pass's student: " + formatIssues(parsed.issues));
    const ModelConfig config = parsed.experiment.model;
    make_student = [config, &input] { return buildModel(config, input.input_shape, input.num_classes); };
    torch::manual_seed(c.experiment.seed);
    student_shape.layers =
        config.torchscript.empty()
            ? (config.layers.is_null() ? presetLayers(config.preset, input.input_shape, input.num_classes)
                                       : config.layers)
            : nlohmann::json();
    student_shape.torchscript = config.torchscript;
    student_shape.masks.clear();
    record["student"] = pass.student;
  }
  std::unique_ptr<Model> student = make_student();
  auto masks = carriedMasks(*student, student_shape.masks);
  const double t = pass.temperature;
  const double alpha = pass.alpha;
  // Every other rank trains a student of the same architecture (its weights become rank 0's).
  TrainingPhase phase = makePhase(pass, c, make_student, masks);
  phase.parts_for = [&, teacher](int rank, Model& model, torch::Device device) {
    std::shared_ptr<Teacher> mine = teacher;
    if (rank != 0) {  // a teacher of its own on the rank's device
      mine = loadTeacher(pass.teacher, c.run_dir, c.original);
      mine->to(device);
    }
    return StepParts()
        .add(std::make_shared<DistillationLossPart>(mine, t, alpha))
        .add(maskParts(masksOfRank(rank, masks, model)));
  };
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
  TrainingPhase phase = makePhase(
      pass, c, [&] { return makeQatModel(input, pass, [](const std::string&) {}); }, masks);
  stopped = !train(phase, *model, record);
  if (stopped) return input;
  QuantizeResult result = convertQatModel(*model, pass, log);
  record["mode"] = wordString(pass.mode);
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
  BatchLoader loader(c.data.train, options);
  loader.startEpoch(1, 0);
  auto calibration = [&loader]() -> std::optional<torch::Tensor> {
    std::optional<Batch> batch = loader.next();
    if (!batch) return std::nullopt;
    return batch->x;
  };
  QuantizeResult result = quantizeArtifact(
      input, pass, calibration, [&c](const std::string& line) { c.events.log(LogLevel::Info, line); });
  record["mode"] = wordString(pass.mode);
  record["engine"] = result.engine;
  record["float_layers"] = result.float_layers;
  if (pass.mode == QuantizeMode::Static) record["observer"] = wordString(pass.observer);
  result.artifact.masks.clear();  // int8 models are not trained: masks have no further use
  return result.artifact;
}

}  // namespace

std::string describePass(const CompressPassConfig& p) {
  std::ostringstream out;
  if (p.type == PassType::Prune) {
    if (p.method == PruneMethod::Structured) {
      out << "structured " << (p.norm == PruneNorm::L1 ? "L1" : "L2") << " pruning of " << percent(p.amount)
          << " of the channels";
    } else {
      out << (p.scope == PruneScope::Global ? "global" : "per-layer") << " unstructured L1 pruning of "
          << percent(p.amount) << " of the weights"
          << (p.schedule == PruneSchedule::Gradual ? ", gradual" : "");
    }
  } else if (p.type == PassType::Finetune) {
    out << "fine-tuning";
  } else if (p.type == PassType::Distill) {
    out << "distillation from " << p.teacher << " (T " << p.temperature << ", alpha " << p.alpha << ")";
  } else {
    out << (p.mode == QuantizeMode::Qat ? "quantization-aware training, then static" : wordString(p.mode))
        << " int8 quantization";
  }
  const bool trains = p.type != PassType::Quantize || p.mode == QuantizeMode::Qat;
  if (trains && (p.epochs > 0 || p.max_steps > 0)) {
    if (p.type == PassType::Prune) out << ", fine-tuned";
    out << " for "
        << (p.max_steps > 0 ? std::to_string(p.max_steps) + " steps"
                            : std::to_string(p.epochs) + " epoch(s)");
  }
  return out.str();
}

ModelArtifact runPass(const CompressPassConfig& pass, const ModelArtifact& input, PassContext& context,
                      nlohmann::json& record, bool& stopped) {
  stopped = false;
  record["pass"] = compressPassToJson(pass);
  record["description"] = describePass(pass);
  switch (pass.type) {
    case PassType::Prune:
      return prune(pass, input, context, record, stopped);
    case PassType::Finetune:
      return fineTuned(pass, input, context, record, stopped);
    case PassType::Distill:
      return distill(pass, input, context, record, stopped);
    case PassType::Quantize:
      break;
  }
  if (pass.mode == QuantizeMode::Qat) return quantizeAware(pass, input, context, record, stopped);
  return quantize(pass, input, context, record);
}

}  // namespace wb
