#pragma once
// A sharded run's checkpoint, rank by rank (train.shard; the files: run_folder/checkpoint_shards.h). Each
// rank writes the optimizer state it holds into its own shard file, all at once; an all-gather of the files'
// lengths and CRCs is the barrier after which rank 0 writes the main file (the whole model, the schedule, the
// scaler, the parts, the optimizer's groups without their state) naming every shard. No rank ever holds
// another's optimizer state, for the write or for a resume. A resume keeps on each rank the state of the
// parameters it owns under the partition of now, matched by parameter name: on the same number of ranks that
// is its own shard file alone; on another it reads, one at a time, the shard files holding its parameters.

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "distributed/rank_group.h"
#include "model/model.h"
#include "run_folder/checkpoint_shards.h"
#include "run_folder/checkpoint_store.h"

namespace wb {

// The rank that keeps a parameter's optimizer state under a partition; -1 for one no rank steps (frozen).
using ParameterOwner = std::function<int(const torch::Tensor& parameter)>;

// The model's parameter names each of `world_size` ranks owns, rank by rank.
std::vector<std::vector<std::string>> ownedParameterNames(Model& model, const ParameterOwner& owner,
                                                          int world_size);

// This rank's shard file of the checkpoint of `step` in `folder`: the optimizer's state as LibTorch saves it
// (the rank holds its own parameters' only). `buffer` is reused from one checkpoint to the next.
CheckpointShard writeOptimizerShard(const std::string& folder, int64_t step, int rank, int world_size,
                                    Model& model, torch::optim::Optimizer& optimizer,
                                    const ParameterOwner& owner, std::string& buffer);

// Every rank's shard record, on every rank: an all-gather of the lengths and CRCs (a collective, so when it
// returns every rank has written its shard), the parameter names from `owner`.
std::vector<CheckpointShard> gatherShardRecords(RankGroup& group, const CheckpointShard& mine, int64_t step,
                                                Model& model, const ParameterOwner& owner);

// The optimizer's state moved aside for the main file's write (the groups and their options stay, so a
// resume on any number of ranks gets them from the main file) and put back when it goes out of scope.
class OptimizerStateAside {
 public:
  explicit OptimizerStateAside(torch::optim::Optimizer& optimizer);
  ~OptimizerStateAside();
  OptimizerStateAside(const OptimizerStateAside&) = delete;
  OptimizerStateAside& operator=(const OptimizerStateAside&) = delete;

 private:
  torch::optim::Optimizer& m_optimizer;
  std::remove_reference_t<decltype(std::declval<torch::optim::Optimizer&>().state())> m_state;
};

// After restoreTrainingState has read the main file: the optimizer keeps the state of the parameters `owner`
// gives `rank`. From the shard files the main file names (each checked against it), reading only those that
// hold such parameters; from the main file's whole state when it names none (an unsharded run's or an older
// build's checkpoint). UserError naming the file when a shard holds a parameter the model lacks, or when no
// shard holds one the model has.
void restoreOptimizerShards(const LoadedCheckpoint& checkpoint, Model& model,
                            torch::optim::Optimizer& optimizer, int rank, const ParameterOwner& owner);

}  // namespace wb
