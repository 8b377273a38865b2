#pragma once
// One rank of a training as its thread trains it, built the same way for a run's ranks and a compression
// pass's fine-tuning: its device and group (joined later, on its thread), its model and optimizer (the
// caller's choice: a run builds them from the experiment, a pass from its artifact), its schedule and loss
// scaler, its step parts (data parallel's allreduce first when there are several ranks), its own log when it
// is not rank 0, and what it came to. Built one rank after another on the run's thread (ranks that are
// threads would otherwise race for torch's one CPU generator while initializing their weights).

#include <torch/torch.h>

#include <memory>
#include <string>

#include "model/model.h"
#include "optim/grad_scaler.h"
#include "optim/lr_schedule.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/event_stream.h"
#include "step/step_parts.h"
#include "train/data_parallel.h"
#include "train/rank_log.h"
#include "train/rank_trainer.h"
#include "train/training_plan.h"
#include "workbench/experiment.h"

namespace wb {

struct TrainingRank {
  TrainingRank(const RankPlacement& placement, int world_size);

  // With the model (owned, or the caller's for `model_in_use`) and its optimizer: the schedule, the scaler
  // and, with several ranks, the allreduce part; a rank other than 0 gets its log (rank-N.log) in `folder`.
  void setUp(const Experiment& experiment, const TrainingPlan& plan, Model& model_in_use,
             std::unique_ptr<torch::optim::Optimizer> rank_optimizer, const std::string& folder);
  // The model's and optimizer's states, the schedule's, the scaler's and the parts' (masks) from a
  // checkpoint.
  void restore(const LoadedCheckpoint& checkpoint);
  bool isLead() const { return placement.rank == 0; }
  // Rank 0 reports through the training's stream; the others through their log.
  EventStream& events(EventStream& lead_events) { return log ? log->events() : lead_events; }
  LocalRank local() const { return {placement, group.get(), parallel.get()}; }
  // Trains with `setup` (whose parts are this rank's), its log flushed whatever happens.
  void train(const RankSetup& setup);

  RankPlacement placement;
  std::unique_ptr<DeferredRankGroup> group;
  std::unique_ptr<Model> owned_model;  // when the rank built its own
  Model* model = nullptr;
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  std::unique_ptr<LrSchedule> schedule;
  std::unique_ptr<GradScaler> scaler;
  std::shared_ptr<DataParallelStep> parallel;
  StepParts parts;
  std::unique_ptr<RankLog> log;
  RankOutcome outcome;
};

}  // namespace wb
