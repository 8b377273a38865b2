#include "train/training_rank.h"

#include "optim/optimizer_factory.h"
#include "run_folder/training_state.h"
#include "step/clip_grad_norm_part.h"
#include "workbench/errors.h"

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
    if (experiment.train.shard != ShardLevel::None) {
      sharded =
          std::make_shared<ShardedTrainingState>(model.model, *model.optimizer, *group, experiment.train);
      first.add(sharded);
    }
  }
  first.add(parts);
  step = std::make_unique<RankStep>(experiment.train, std::move(model), placement.device, first);
  // Sharded gradients: each rank holds its shard's only, so clipping takes the norm of all ranks' together.
  if (sharded && sharded->level() == ShardLevel::Gradients) {
    if (auto* clip = dynamic_cast<ClipGradNormPart*>(step->parts().find("clip_grad_norm"))) {
      clip->sumAcrossRanks([g = group.get()](torch::Tensor& t) { g->allreduceSum(t); });
    }
  }
  refuseUnfreezingWhereUnsupported();
  schedule = std::make_unique<LrSchedule>(experiment.schedule, experiment.optimizer.lr, plan.total_steps);
  // Each group's own base rate (optimizer.param_groups), read before any step sets the rates.
  schedule->addGroups(groupLearningRates(step->optimizer()));
  optimizer_config = experiment.optimizer;
  if (!isLead()) log = std::make_unique<RankLog>(folder, placement.rank);
}

// Both capture the trainable parameters once: data parallel's allreduce its buckets, a CUDA graph its
// backward. A parameter thawed later would train on one rank only, or not at all.
void TrainingRank::refuseUnfreezingWhereUnsupported() {
  const FrozenParameters* frozen = step->frozen();
  if (!frozen || frozen->plan().empty()) return;
  if (group->size() > 1) {
    throw UserError(
        "model.unfreeze does not work with several devices (data parallel) yet: the gradient "
        "allreduce would leave out what thaws",
        "Train on one device, or freeze without model.unfreeze.");
  }
  if (step->graphChoice().capture) {
    throw UserError(
        "model.unfreeze does not work with train.cuda_graphs: a step captured before a thaw would "
        "not train what thaws",
        "Set train.cuda_graphs to off.");
  }
}

void TrainingRank::restore(const LoadedCheckpoint& checkpoint) {
  if (FrozenParameters* frozen = step->frozen()) {
    const nlohmann::json at = checkpoint.contents.meta.value("progress", nlohmann::json::object());
    thawForResume(*frozen, at.value("epoch", int64_t{1}), at.value("next_batch", int64_t{0}), step->model(),
                  step->optimizer(), optimizer_config, *schedule);
  }
  step->parts().loadState(
      restoreTrainingState(checkpoint.contents.payload, checkpoint.path, step->model(), step->optimizer()));
  // The checkpoint holds every shard's optimizer state (on whatever number of ranks it was written).
  if (sharded) sharded->keepOwnOptimizerState();
  schedule->loadState(checkpoint.contents.meta.value("schedule", nlohmann::json::object()));
  if (step->scaler().enabled() && checkpoint.contents.meta.contains("scaler")) {
    step->scaler().loadState(GradScalerState::fromJson(checkpoint.contents.meta["scaler"]));
  }
}

void TrainingRank::train(const RankSetup& setup) {
  try {
    if (sharded && setup.checkpoint) {
      // Every rank sends its optimizer shard to rank 0 for the one checkpoint file rank 0 writes.
      RankSetup with_shards = setup;
      with_shards.checkpoint = [this, write = setup.checkpoint](const RankProgress& p) {
        sharded->gatherOptimizerState();
        write(p);
        sharded->keepOwnOptimizerState();
      };
      outcome = trainRank(with_shards);
    } else {
      outcome = trainRank(setup);
    }
  } catch (...) {
    if (log) log->events().flush();
    throw;
  }
  if (log) log->events().flush();
}

}  // namespace wb
