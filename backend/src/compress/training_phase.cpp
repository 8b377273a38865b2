#include "compress/training_phase.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "optim/optimizer_factory.h"
#include "parallel/data_parallel.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/run_folder.h"
#include "task/make_task.h"
#include "torch_compat.h"
#include "train/checkpoint_writer.h"
#include "train/rank_launch.h"
#include "train/training_host.h"
#include "train/training_plan.h"
#include "train/training_rank.h"
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

// Several ranks share the cores: while the phase trains, each takes its share of the intra-op and OpenBLAS
// threads (as a run's ranks do); the pipeline's own setting comes back after it, for its latency
// measurements.
class RankThreadShare {
 public:
  RankThreadShare(const TrainConfig& train, int64_t ranks_on_this_machine, EventStream& events)
      : m_train(train) {
    events.log(LogLevel::Info,
               configureTrainingThreads(train, coresPerRank(train, ranks_on_this_machine)) + " per rank");
  }
  ~RankThreadShare() { configureTrainingThreads(m_train, std::nullopt); }
  RankThreadShare(const RankThreadShare&) = delete;
  RankThreadShare& operator=(const RankThreadShare&) = delete;

 private:
  const TrainConfig& m_train;
};

// One rank of the phase: rank 0 trains the pass's model, the others a replica; the pass's parts after data
// parallel's.
void setUpPhaseRank(TrainingPhase& phase, const Experiment& experiment, const TrainingPlan& plan,
                    TrainingRank& rank, Model& lead_model, const std::string& folder) {
  const torch::Device device = rank.placement.device;
  std::unique_ptr<Model> replica;
  if (!rank.isLead()) {
    replica = phase.make_replica();
    replica->to(device);
  }
  Model& model = replica ? *replica : lead_model;
  auto optimizer = makeOptimizer(experiment.optimizer, model.namedParameters());
  const StepParts parts = phase.parts_for ? phase.parts_for(rank.placement.rank, model, device) : StepParts();
  rank.setUp(experiment, plan, RankModel{model, std::move(replica), std::move(optimizer)}, parts, folder);
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
  // A pass's parts write the weights after each step (masks) or run the layers themselves (quantization-aware
  // training), which needs every parameter present: stage 3 fine-tunes as stage 2 keeps the rest sharded.
  if (e.train.shard == ShardLevel::Parameters) e.train.shard = ShardLevel::Gradients;
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

  RankLaunch ranks(layoutRanks(experiment, std::nullopt));
  const RankLayout& layout = ranks.layout();
  const int64_t shard = (phase.data.train.size() + layout.world_size - 1) / layout.world_size;
  const TrainingPlan plan = planTraining(experiment.train, shard);
  std::optional<RankProgress> resume_point;
  if (loaded) {
    resume_point = RankProgress::fromJson(loaded->contents.meta.at("progress"), *makeTask(experiment));
    resume_point->restartEpochIfPast((shard + experiment.train.batch_size - 1) / experiment.train.batch_size);
    folder.truncateLogs(loaded->contents.meta.value("log_lengths", nlohmann::json::object()));
  }
  ranks.build(
      [&](TrainingRank& rank) { setUpPhaseRank(phase, experiment, plan, rank, model, folder.path()); },
      loaded ? &*loaded : nullptr);

  RecorderScope recording(phase.events, &folder, phase.outer_recorder);
  std::ostringstream line;
  line << "Fine-tuning: " << plan.total_steps << " steps (" << plan.epochs << " epoch(s) of "
       << plan.steps_per_epoch << "), optimizer " << wordOf(experiment.optimizer.name) << " lr "
       << experiment.optimizer.lr << ", schedule " << wordOf(experiment.schedule.name);
  if (ranks.parallel())
    line << ", data parallel on " << layout.world_size << " ranks, batch " << experiment.train.batch_size
         << " per rank";
  if (resume_point) line << "; continuing at step " << resume_point->step << " from " << loaded->path;
  phase.events.log(LogLevel::Info, line.str());

  CheckpointWriter checkpoint_writer(store, phase.events, folder, experimentToJson(experiment));
  TrainingRank& lead = ranks.lead();
  const nlohmann::json meta = {{"world_size", layout.world_size}, {"devices", layout.devices}};
  std::optional<RankThreadShare> thread_share;
  if (ranks.parallel()) thread_share.emplace(experiment.train, layout.ranks_on_this_machine, phase.events);
  c10::intrusive_ptr<c10d::Store> rank_store;
  const auto failure =
      ranks.train(RankTraining{.experiment = experiment,
                               .data = phase.data,
                               .plan = plan,
                               .events = phase.events,
                               .control = phase.control,
                               .resume_from = resume_point ? &*resume_point : nullptr,
                               .write_checkpoint =
                                   [&](const RankProgress& progress) {
                                     checkpoint_writer.write(
                                         progress, lead.step->model(), lead.step->optimizer(), *lead.schedule,
                                         lead.step->scaler(), meta, lead.step->parts().saveState());
                                   }},
                  rank_store, rankGroupOptions(experiment.train, std::nullopt));
  if (failure) {
    if (ranks.parallel()) {
      phase.events.log(LogLevel::Error, "Fine-tuning: rank " + std::to_string(failure->rank) + " of " +
                                            std::to_string(layout.world_size) + " (" +
                                            layout.devices[failure->rank] + ") failed");
    }
    std::rethrow_exception(failure->error);
  }
  return lead.outcome;
}

}  // namespace wb
