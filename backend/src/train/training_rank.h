#pragma once
// One rank of a training as its thread trains it, built the same way for a run's ranks and a compression
// pass's fine-tuning: its device and group (joined later, on its thread), its step (rank_step.h: the model —
// the caller's choice: a run builds it from the experiment, a pass from its artifact — optimizer, loss scaler
// and parts, data parallel's allreduce first when there are several ranks), its schedule, its own log when
// it is not rank 0, and what it came to. RankLaunch (rank_launch.h) builds and trains them.

#include <torch/torch.h>

#include <memory>
#include <string>

#include "optim/lr_schedule.h"
#include "parallel/data_parallel.h"
#include "parallel/sharded_checkpoint.h"
#include "parallel/sharded_parameters.h"
#include "parallel/sharded_state.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/event_stream.h"
#include "step/step_parts.h"
#include "train/rank_log.h"
#include "train/rank_step.h"
#include "train/rank_trainer.h"
#include "train/training_plan.h"
#include "workbench/experiment.h"

namespace wb {

struct TrainingRank {
  TrainingRank(const RankPlacement& placement, int world_size);

  // The rank's step over `model` with, after the allreduce when there are several ranks, the caller's
  // `parts`; the schedule; a rank other than 0 gets its log (rank-N.log) in `folder`.
  void setUp(const Experiment& experiment, const TrainingPlan& plan, RankModel model, const StepParts& parts,
             const std::string& folder);
  // The model's and optimizer's states, the schedule's, the scaler's and the parts' (masks) from a
  // checkpoint.
  void restore(const LoadedCheckpoint& checkpoint);
  bool isLead() const { return placement.rank == 0; }
  // Rank 0 reports through the training's stream; the others through their log.
  EventStream& events(EventStream& lead_events) { return log ? log->events() : lead_events; }
  LocalRank local() const { return {placement, group.get(), parallel.get()}; }
  // model.unfreeze with data parallel or CUDA graphs: refused (wb::UserError) before anything trains.
  void refuseUnfreezingWhereUnsupported();
  // Trains with `setup` (whose step is this rank's), its log flushed whatever happens.
  void train(const RankSetup& setup);
  // Who keeps each parameter's optimizer state: the shard's owner, or this rank alone when unsharded.
  ParameterOwner parameterOwner() const;

  RankPlacement placement;
  std::unique_ptr<DeferredRankGroup> group;
  std::shared_ptr<DataParallelStep> parallel;     // with several ranks; the first of the step's parts
  std::shared_ptr<ShardedTrainingState> sharded;  // train.shard with several ranks; right after `parallel`
  std::shared_ptr<ShardedParameters> gathered;  // train.shard parameters with several ranks; after `sharded`
  std::unique_ptr<RankStep> step;
  std::unique_ptr<LrSchedule> schedule;
  OptimizerConfig optimizer_config;  // for the groups thawed parameters join (model.unfreeze)
  std::unique_ptr<RankLog> log;
  RankOutcome outcome;
  std::string checkpoint_folder;  // where this rank writes its shard files (train.shard)

 private:
  // With train.shard: this rank's shard file, then (a collective) every rank's records, then rank 0's `write`
  // of the main file naming them.
  void writeShardedCheckpoint(const RankProgress& progress,
                              const std::function<void(const RankProgress&)>& write);
  std::string m_shard_buffer;  // reused by every shard write
};

}  // namespace wb
