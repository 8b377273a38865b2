#include "train/training_rank.h"

#include "run_folder/training_state.h"

namespace wb {

TrainingRank::TrainingRank(const RankPlacement& placement_, int world_size)
    : placement(placement_),
      group(std::make_unique<DeferredRankGroup>(placement_.rank, world_size, placement_.device)) {}

void TrainingRank::setUp(const Experiment& experiment, const TrainingPlan& plan, Model& model_in_use,
                         std::unique_ptr<torch::optim::Optimizer> rank_optimizer, const std::string& folder) {
  model = &model_in_use;
  optimizer = std::move(rank_optimizer);
  schedule = std::make_unique<LrSchedule>(experiment.schedule, experiment.optimizer.lr, plan.total_steps);
  GradScalerOptions scaler_options;
  scaler_options.enabled = experiment.train.amp == "fp16";
  scaler = std::make_unique<GradScaler>(scaler_options);
  if (group->size() > 1) {
    parallel = std::make_shared<DataParallelStep>(*model, *group, experiment.train, experiment.seed);
    parts.add(parallel);
  }
  if (!isLead()) log = std::make_unique<RankLog>(folder, placement.rank);
}

void TrainingRank::restore(const LoadedCheckpoint& checkpoint) {
  parts.loadState(restoreTrainingState(checkpoint.contents.payload, checkpoint.path, *model, *optimizer));
  schedule->loadState(checkpoint.contents.meta.value("schedule", nlohmann::json::object()));
  if (scaler->enabled() && checkpoint.contents.meta.contains("scaler")) {
    scaler->loadState(GradScalerState::fromJson(checkpoint.contents.meta["scaler"]));
  }
}

void TrainingRank::train(const RankSetup& setup) {
  try {
    outcome = trainRank(setup);
  } catch (...) {
    if (log) log->events().flush();
    throw;
  }
  if (log) log->events().flush();
}

}  // namespace wb
