#include "compress/training_phase.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "optim/optimizer_factory.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/run_folder.h"
#include "torch_compat.h"
#include "train/checkpoint_writer.h"
#include "train/data_parallel.h"
#include "train/training_plan.h"
#include "train/training_rank.h"
#include "workbench/errors.h"
#include "workbench/system_info.h"

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

// Several ranks share the cores: while the phase trains, each takes its share of the intra-op and OpenBLAS
// threads (as a run's ranks do); the pipeline's own setting comes back after it, for its latency
// measurements.
class RankThreadShare {
 public:
  RankThreadShare(const TrainConfig& train, int64_t cores_per_rank, EventStream& events) : m_train(train) {
    const int64_t blas = train.blas_threads > 0 ? train.blas_threads : cores_per_rank;
    events.log(LogLevel::Info, configureThreads(cores_per_rank, std::max<int64_t>(1, blas)) + " per rank");
  }
  ~RankThreadShare() { configureThreads(m_train.threads, m_train.blas_threads); }
  RankThreadShare(const RankThreadShare&) = delete;
  RankThreadShare& operator=(const RankThreadShare&) = delete;

 private:
  const TrainConfig& m_train;
};

// One rank of the phase: rank 0 trains the pass's model, the others a replica; then the pass's parts after
// data parallel's.
std::unique_ptr<TrainingRank> makePhaseRank(TrainingPhase& phase, const Experiment& experiment,
                                            const TrainingPlan& plan, const RankPlacement& placement,
                                            int world_size, Model& lead_model, const std::string& folder) {
  auto rank = std::make_unique<TrainingRank>(placement, world_size);
  Model* model = &lead_model;
  if (placement.rank != 0) {
    rank->owned_model = phase.make_replica();
    rank->owned_model->to(placement.device);
    model = rank->owned_model.get();
  }
  rank->setUp(experiment, plan, *model, makeOptimizer(experiment.optimizer, model->namedParameters()),
              folder);
  if (phase.parts_for) rank->parts.add(phase.parts_for(placement.rank, *model, placement.device));
  return rank;
}

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
  // A pass's models are built from its artifact, without synchronized batch norm: with several ranks, rank
  // 0's running statistics are broadcast at each step instead (DDP's broadcast_buffers).
  e.train.sync_batchnorm = false;
  e.train.keep_checkpoints = 2;
  e.compress = CompressConfig{};
  return e;
}

int64_t phaseTotalSteps(const Experiment& run, const CompressPassConfig& pass, int64_t samples) {
  const Experiment e = phaseExperiment(run, pass);
  const int64_t ranks = std::max<int64_t>(1, static_cast<int64_t>(e.train.devices.size()));
  return planTraining(e.train, (samples + ranks - 1) / ranks).total_steps;
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
  const auto loaded =
      store.loadLatestGood([&](const std::string& w) { phase.events.log(LogLevel::Warning, w); });
  if (!loaded && !fresh) folder.truncateLogs(nlohmann::json::object());  // killed before its first checkpoint

  const RankLayout layout = layoutRanks(experiment, std::nullopt);
  const bool parallel = layout.world_size > 1;
  const int64_t shard = (phase.data.train.size() + layout.world_size - 1) / layout.world_size;
  const TrainingPlan plan = planTraining(experiment.train, shard);
  std::optional<RankProgress> resume_point;
  if (loaded) {
    resume_point = RankProgress::fromJson(loaded->contents.meta.at("progress"));
    resume_point->restartEpochIfPast((shard + experiment.train.batch_size - 1) / experiment.train.batch_size);
    folder.truncateLogs(loaded->contents.meta.value("log_lengths", nlohmann::json::object()));
  }
  std::vector<std::unique_ptr<TrainingRank>> ranks;
  for (const RankPlacement& placement : layout.local) {
    ranks.push_back(
        makePhaseRank(phase, experiment, plan, placement, layout.world_size, model, folder.path()));
    if (loaded) ranks.back()->restore(*loaded);
  }

  RecorderScope recording(phase.events, &folder, phase.outer_recorder);
  std::ostringstream line;
  line << "Fine-tuning: " << plan.total_steps << " steps (" << plan.epochs << " epoch(s) of "
       << plan.steps_per_epoch << "), optimizer " << experiment.optimizer.name << " lr "
       << experiment.optimizer.lr << ", schedule " << experiment.schedule.name;
  if (parallel)
    line << ", data parallel on " << layout.world_size << " ranks, batch " << experiment.train.batch_size
         << " per rank";
  if (resume_point) line << "; continuing at step " << resume_point->step << " from " << loaded->path;
  phase.events.log(LogLevel::Info, line.str());

  CheckpointWriter checkpoint_writer(store, phase.events, folder, experimentToJson(experiment));
  TrainingRank& lead = *ranks.front();
  const nlohmann::json meta = {{"world_size", layout.world_size}, {"devices", layout.devices}};
  const auto writeCheckpoint = [&](const RankProgress& progress) {
    checkpoint_writer.write(progress, *lead.model, *lead.optimizer, *lead.schedule, *lead.scaler, meta,
                            lead.parts.saveState());
  };
  RankThreadSettings threads;
  threads.world_size = layout.world_size;
  threads.cores_per_rank = std::max<int64_t>(
      1, (experiment.train.threads > 0 ? experiment.train.threads : coresAvailable()) / layout.world_size);
  threads.group_options = rankGroupOptions(experiment.train, std::nullopt);
  std::optional<RankThreadShare> thread_share;
  if (parallel) thread_share.emplace(experiment.train, threads.cores_per_rank, phase.events);
  std::vector<LocalRank> local;
  for (const auto& r : ranks) local.push_back(r->local());
  const auto failure = trainLocalRanks(local, threads, [&](size_t i) {
    TrainingRank& r = *ranks[i];
    r.train(
        {experiment, phase.data, *r.model, *r.optimizer, *r.schedule, plan, r.placement.device,
         r.events(phase.events), phase.control, *r.scaler, resume_point ? &*resume_point : nullptr,
         r.isLead() ? std::function<void(const RankProgress&)>(writeCheckpoint) : [](const RankProgress&) {},
         r.parts, parallel ? r.group.get() : nullptr, layout.devices});
  });
  if (failure) {
    if (parallel) {
      phase.events.log(LogLevel::Error, "Fine-tuning: rank " + std::to_string(failure->rank) + " of " +
                                            std::to_string(layout.world_size) + " (" +
                                            layout.devices[failure->rank] + ") failed");
    }
    std::rethrow_exception(failure->error);
  }
  return lead.outcome;
}

}  // namespace wb
