#include "compress/training_phase.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "optim/grad_scaler.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/run_folder.h"
#include "torch_compat.h"
#include "train/checkpoint_writer.h"
#include "train/training_plan.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

// Points the stream's recorder at a folder for a scope, and back to the previous one after it.
class RecorderScope {
 public:
  RecorderScope(EventStream& events, RunFolder* folder, RunFolder* previous)
      : m_events(events), m_previous(previous) {
    m_events.flush();
    m_events.setRecorder(folder);
  }
  ~RecorderScope() {
    m_events.flush();
    m_events.setRecorder(m_previous);
  }

 private:
  EventStream& m_events;
  RunFolder* m_previous;
};

}  // namespace

Experiment phaseExperiment(const Experiment& run, const CompressPassConfig& pass) {
  Experiment e = run;
  e.train.epochs = pass.epochs;
  e.train.max_steps = pass.max_steps;
  if (e.train.epochs == 0 && e.train.max_steps == 0) e.train.epochs = 1;
  e.optimizer.lr = pass.lr > 0 ? pass.lr : run.optimizer.lr / 10.0;
  e.schedule.warmup_steps = 0;
  e.schedule.t_max = 0;
  e.train.early_stopping.enabled = false;
  e.train.keep_checkpoints = 2;
  e.compress = CompressConfig{};
  return e;
}

RankOutcome runTrainingPhase(TrainingPhase& phase, Model& model) {
  const Experiment experiment = phaseExperiment(phase.run_experiment, phase.pass);
  fs::create_directories(phase.folder);
  const bool fresh = !fs::exists(fs::path(phase.folder) / "experiment.json");
  if (fresh) {
    // A folder a run reader understands: the phase's own experiment, its logs, its checkpoints.
    nlohmann::json doc = experimentToJson(experiment);
    std::ofstream(phase.folder + "/experiment.json") << doc.dump(2) << "\n";
  }
  RunFolder folder = RunFolder::open(phase.folder);
  CheckpointStore store(folder.path(), experiment.train.keep_checkpoints, true);
  const auto loaded = store.loadLatestGood([&](const std::string& w) { phase.events.log(LogLevel::Warning, w); });

  auto optimizer = makeOptimizer(experiment.optimizer, model.namedParameters());
  const TrainingPlan plan = planTraining(experiment.train, phase.data.train_x.size(0));
  LrSchedule schedule(experiment.schedule, experiment.optimizer.lr, plan.total_steps);
  GradScalerOptions scaler_options;
  scaler_options.enabled = experiment.train.amp == "fp16";
  GradScaler scaler(scaler_options);

  std::optional<RankProgress> resume_point;
  if (loaded) {
    const ExtraTensors extra = restoreTrainingState(loaded->contents.payload, loaded->path, model, *optimizer);
    phase.parts.loadState(extra);
    schedule.loadState(loaded->contents.meta.value("schedule", nlohmann::json::object()));
    if (scaler.enabled() && loaded->contents.meta.contains("scaler")) {
      scaler.loadState(GradScalerState::fromJson(loaded->contents.meta["scaler"]));
    }
    resume_point = RankProgress::fromJson(loaded->contents.meta.at("progress"));
    folder.truncateLogs(loaded->contents.meta.value("log_lengths", nlohmann::json::object()));
  } else if (!fresh) {
    folder.truncateLogs(nlohmann::json::object());  // killed before its first checkpoint: starts over
  }

  RecorderScope recording(phase.events, &folder, phase.outer_recorder);
  std::ostringstream line;
  line << "Fine-tuning: " << plan.total_steps << " steps (" << plan.epochs << " epoch(s) of " << plan.steps_per_epoch
       << "), optimizer " << experiment.optimizer.name << " lr " << experiment.optimizer.lr << ", schedule "
       << experiment.schedule.name;
  if (resume_point) line << "; continuing at step " << resume_point->step << " from " << loaded->path;
  phase.events.log(LogLevel::Info, line.str());

  CheckpointWriter checkpoint_writer(store, phase.events, folder, experimentToJson(experiment));
  auto writeCheckpoint = [&](const RankProgress& progress) {
    checkpoint_writer.write(progress, model, *optimizer, schedule, scaler, {}, phase.parts.saveState());
  };
  RankSetup setup{experiment, phase.data, model, *optimizer, schedule, plan, phase.device, phase.events,
                  phase.control, scaler, resume_point ? &*resume_point : nullptr, writeCheckpoint, phase.parts,
                  /*group=*/nullptr, /*rank_devices=*/{}};
  return trainRank(setup);
}

}  // namespace wb
