#include "train/training_rank.h"

#include "optim/optimizer_factory.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/training_state.h"
#include "step/clip_grad_norm_part.h"
#include "task/make_task.h"
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
      if (experiment.train.shard == ShardLevel::Parameters) {
        gathered = std::make_shared<ShardedParameters>(model.model, *group, sharded->partition());
        first.add(gathered);
      }
    }
  }
  first.add(parts);
  step = std::make_unique<RankStep>(experiment.train, std::move(model), makeTask(experiment),
                                    placement.device, first);
  // Sharded gradients: each rank holds its shard's only, so clipping takes the norm of all ranks' together.
  if (sharded && sharded->level() >= ShardLevel::Gradients) {
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
  checkpoint_folder = CheckpointStore::folderOf(folder);
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
  // Of the optimizer's state (in the shard files, or whole in the main file), this rank keeps its own
  // shard's, whatever number of ranks wrote it.
  restoreOptimizerShards(checkpoint, step->model(), step->optimizer(), sharded ? placement.rank : 0,
                         parameterOwner());
  schedule->loadState(checkpoint.contents.meta.value("schedule", nlohmann::json::object()));
  if (step->scaler().enabled() && checkpoint.contents.meta.contains("scaler")) {
    step->scaler().loadState(GradScalerState::fromJson(checkpoint.contents.meta["scaler"]));
  }
}

void TrainingRank::train(const RankSetup& setup) {
  try {
    if (sharded && setup.checkpoint) {
      RankSetup with_shards = setup;
      with_shards.checkpoint = [this, write = setup.checkpoint](const RankProgress& p) {
        writeShardedCheckpoint(p, write);
      };
      outcome = trainRank(with_shards);
    } else {
      outcome = trainRank(setup);
    }
    if (gathered) gathered->gatherAll();  // the saved model and its export are the whole model
  } catch (...) {
    if (log) log->events().flush();
    throw;
  }
  if (log) log->events().flush();
}

ParameterOwner TrainingRank::parameterOwner() const {
  if (sharded) return [s = sharded.get()](const torch::Tensor& parameter) { return s->ownerOf(parameter); };
  return [](const torch::Tensor& parameter) { return parameter.requires_grad() ? 0 : -1; };  // frozen: none
}

// Each rank writes its shard file at once, in parallel; rank 0 writes the main file last.
void TrainingRank::writeShardedCheckpoint(const RankProgress& progress,
                                          const std::function<void(const RankProgress&)>& write) {
  Model& model = step->model();
  torch::optim::Optimizer& optimizer = step->optimizer();
  const ParameterOwner owner = parameterOwner();
  const CheckpointShard mine = writeOptimizerShard(checkpoint_folder, progress.step, placement.rank,
                                                   group->size(), model, optimizer, owner, m_shard_buffer);
  RankProgress named = progress;
  named.shards = gatherShardRecords(*group, mine, progress.step, model, owner);  // every shard is on disk
  // The main file holds the whole model: ZeRO stage 3 (train.shard parameters) gathers it here for the write
  // (a collective, every rank) and releases the other ranks' shards after it.
  if (gathered) gathered->gatherAll();
  if (isLead()) {
    // The main file keeps the optimizer groups' options; the state is in the shard files.
    const OptimizerStateAside aside(optimizer);
    write(named);
  }
  if (gathered) gathered->releaseOthers();
}

}  // namespace wb
