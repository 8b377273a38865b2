#pragma once
// train.shard as a part of a data-parallel rank's step (ZeRO's stages 1 to 3), beside the gradient
// allreduce: each rank keeps the optimizer state of its shard of the parameters only (shard_partition.h), and
// with `gradients` only its shard's averaged gradients too.
//
// The optimizer stays the one built for the whole model: LibTorch's optimizers (and ours, optim/) skip a
// parameter whose gradient is undefined and make its state only at its first step, so a rank whose other
// gradients are undefined when the optimizer steps updates, and holds state for, its shard alone — with the
// optimizer's own arithmetic, per-group options and weight decay untouched. After the step the updated shards
// are all-gathered, so every rank evaluates, checkpoints and exports the whole model.
//
//   optimizer: the allreduce (data_parallel.h) averages every gradient; clipping sees them all; then the
//              gradients of the other shards are dropped and the optimizer steps this shard.
//   gradients: no allreduce; the gradients are reduce-scattered in chunks of train.bucket_mb, each rank
//              receiving only its shard's averages; clipping sums the squared norms across the ranks.
//   parameters: ShardedParameters (sharded_parameters.h) reduces the gradients layer by layer in backward;
//              here the optimizer steps this shard as at gradients, and the updated shards are not
//              all-gathered: only this rank's is kept between steps, the others gathered per layer.
//
// Checkpoints are written shard by shard (sharded_checkpoint.h): each rank its own optimizer state into its
// own file, rank 0 the main file naming them; a resume, on any number of ranks, keeps on each rank the state
// of the parameters ownerOf gives it.

#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "distributed/rank_group.h"
#include "model/model.h"
#include "parallel/shard_partition.h"
#include "step/step_part.h"
#include "workbench/experiment.h"

namespace wb {

class ShardedTrainingState final : public StepPart {
 public:
  // The trainable parameters of `model` (one dtype, as the engine's models have) partitioned over `group`.
  ShardedTrainingState(Model& model, torch::optim::Optimizer& optimizer, RankGroup& group,
                       const TrainConfig& train);

  std::string name() const override { return "shard"; }
  void gradientsReady() override;
  bool optimizerStep(torch::optim::Optimizer& optimizer) override;
  void afterStep(int64_t step) override;

  // The rank whose shard holds `parameter`; -1 for one that is not trained (frozen) or not the model's.
  int ownerOf(const torch::Tensor& parameter) const;

  const ShardPartition& partition() const { return m_partition; }
  ShardLevel level() const { return m_level; }

 private:
  // Copies between rank r's shard elements [begin, end) and `flat` (end - begin elements): the parameters' or
  // their gradients' values. A gradient that is undefined counts as zeros.
  enum class What { Values, Gradients };
  // Calls `piece(parameter, from, length)` for each part of rank r's parameters inside [begin, end) of the
  // flat shard order: `from` is the offset inside the parameter.
  void forEachPiece(int r, int64_t begin, int64_t end,
                    const std::function<void(size_t, int64_t, int64_t)>& piece) const;
  void pack(int r, int64_t begin, int64_t end, What what, torch::Tensor flat) const;
  void unpack(int r, int64_t begin, int64_t end, What what, const torch::Tensor& flat);
  int64_t chunkElements() const;
  void dropOtherGradients();
  void reduceScatterGradients();

  torch::optim::Optimizer& m_optimizer;
  RankGroup& m_group;
  ShardLevel m_level;
  double m_bucket_mb;
  std::vector<torch::Tensor> m_params;  // trainable, in the model's order
  ShardPartition m_partition;
};

}  // namespace wb
