#pragma once
// Batch norm over the global batch of a data-parallel run, like torch.nn.SyncBatchNorm: what batchnorm1d and
// batchnorm2d build while a SyncBatchNormScope names a group of more than one rank (train.sync_batchnorm).
//
// In training, each rank sums its per-channel sum, sum of squares and count, one allreduce adds them up
// across ranks, and every rank normalizes with the global mean and (biased) variance; the running statistics
// follow the global mean and unbiased variance (momentum 0.1), so they stay the same on every rank. The
// gradient flows back through the global statistics: the allreduce's backward is an allreduce of the
// gradients. In eval mode it is torch's batch norm on the running statistics.
//
// The modules derive from torch::nn::BatchNorm1dImpl/BatchNorm2dImpl: the same parameters and buffers under
// the same names and shapes, so a model trained with sync on saves weights that a normal model loads.

#include <torch/torch.h>

#include "model/model_build_context.h"

namespace wb {

class RankGroup;

// Sums `input` across the ranks of `group` (on group.device(); every rank calls it, in the same order) into a
// new tensor; backward sums the incoming gradients across the ranks the same way (a blocking collective,
// issued on the thread that runs this node's backward).
torch::Tensor allreduceSumWithGrad(const torch::Tensor& input, RankGroup& group);

class SyncBatchNorm1dImpl : public torch::nn::BatchNorm1dImpl {
 public:
  SyncBatchNorm1dImpl(int64_t features, RankGroup& group);
  // Training mode: a collective, so every rank must call it for each of its forwards in training mode.
  torch::Tensor forward(const torch::Tensor& input);
  void pretty_print(std::ostream& stream) const override;

 private:
  RankGroup* m_group;
};
TORCH_MODULE(SyncBatchNorm1d);

class SyncBatchNorm2dImpl : public torch::nn::BatchNorm2dImpl {
 public:
  SyncBatchNorm2dImpl(int64_t channels, RankGroup& group);
  // Training mode: a collective, so every rank must call it for each of its forwards in training mode.
  torch::Tensor forward(const torch::Tensor& input);
  void pretty_print(std::ostream& stream) const override;

 private:
  RankGroup* m_group;
};
TORCH_MODULE(SyncBatchNorm2d);

}  // namespace wb
