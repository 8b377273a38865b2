#include "train/training_rank.h"

#include "optim/optimizer_factory.h"
#include "run_folder/training_state.h"

namespace wb {

TrainingRank::TrainingRank(const RankPlacement& placement_, int world_size)
    : placement(placement_),
      group(std::make_unique<DeferredRankGroup>(placement_.rank, world_size, placement_.device)) {}

void TrainingRank::setUp(const Experiment& experiment, const TrainingPlan& plan, RankModel model,
                         const StepParts& parts, const std::string& folder) {
  StepParts first;
  if (group->size() > 1) {
    parallel = std::make_shared<DataParallelStep>(model.model, *group, experiment.train, experiment.seed);
    first.add(parallel);
  }
  first.add(parts);
  step = std::make_unique<RankStep>(experiment.train, std::move(model), placement.device, first);
  schedule = std::make_unique<LrSchedule>(experiment.schedule, experiment.optimizer.lr, plan.total_steps);
  // Each group's own base rate (optimizer.param_groups), read before any step sets the rates.
  schedule->addGroups(groupLearningRates(step->optimizer()));
  optimizer_config = experiment.optimizer;
  if (!isLead()) log = std::make_unique<RankLog>(folder, placement.rank);
}

void TrainingRank::restore(const LoadedCheckpoint& checkpoint) {
  if (FrozenParameters* frozen = step->frozen()) {
    const nlohmann::json at = checkpoint.contents.meta.value("progress", nlohmann::json::object());
    thawForResume(*frozen, at.value("epoch", int64_t{1}), at.value("next_batch", int64_t{0}), step->model(),
                  step->optimizer(), optimizer_config, *schedule);
  }
  step->parts().loadState(
      restoreTrainingState(checkpoint.contents.payload, checkpoint.path, step->model(), step->optimizer()));
  schedule->loadState(checkpoint.contents.meta.value("schedule", nlohmann::json::object()));
  if (step->scaler().enabled() && checkpoint.contents.meta.contains("scaler")) {
    step->scaler().loadState(GradScalerState::fromJson(checkpoint.contents.meta["scaler"]));
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
