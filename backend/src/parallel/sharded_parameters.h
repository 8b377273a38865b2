#pragma once
// train.shard "parameters" (ZeRO stage 3, FSDP-style) as a part of a data-parallel rank's step, after
// ShardedTrainingState (which reduce-scatters the gradients and keeps the optimizer state of this rank's
// shard, as at "gradients"). Between steps a rank keeps the values of its own shard's trainable parameters
// only: the storage of every other trainable parameter is released (its tensor keeps its shape, its storage
// holds no bytes) and allocated again, through the storage's own allocator, when the parameter is gathered.
//
// The model is a layer list: its forward runs the top-level layers one by one through this part
// (LayerNetImpl::setLayerRunner), which gathers a layer's parameters from their owners (one c10d broadcast
// per owning rank) just before the layer runs and releases them after. In training a hook on the layer's
// output gathers them again just before the layer's backward (autograd runs a tensor's hooks before its
// grad_fn), and they are released when every one of the layer's parameters has its gradient (gradient
// accumulator post-hooks). So at any time a rank holds its shard plus at most about one layer (two while one
// layer's backward hands on to the one before it).
//
// Gradients are reduced per layer too, in the step's last backward: when a layer's gradients are complete
// they are averaged across the ranks (an allreduce per owning rank) and only the owner keeps them, so a rank
// holds the gradients of its shard and of the layers whose backward is under way. ShardedTrainingState does
// not reduce-scatter them again at this level. Earlier micro-batches of a step (train.grad_accum)
// accumulate every gradient locally, as data parallel does, and hold them whole until the last one.
//
// Frozen parameters (model.freeze) and buffers (batch norm's statistics) stay whole on every rank.
// Validation, checkpoints and the saved model see the whole model: gatherAll() before them (validation:
// beforeEvaluation; the checkpoint and the end of training: TrainingRank), releaseOthers() at the next step.
// The saved parameter values travel in autograd's saved tensors by storage: releasing and re-allocating a
// storage in place keeps them valid, and the gathered values are written through a tensor with its own
// version counter, so autograd does not see an in-place change between forward and backward.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "distributed/rank_group.h"
#include "model/model.h"
#include "parallel/shard_partition.h"
#include "step/step_part.h"
#include "torch_compat.h"

namespace wb {

class LayerNetModel;

class ShardedParameters final : public StepPart {
 public:
  // `model` must be a layer list (wb::UserError otherwise, naming train.shard); `partition` is the one
  // ShardedTrainingState made over the same trainable parameters in the model's order.
  ShardedParameters(Model& model, RankGroup& group, const ShardPartition& partition);
  ~ShardedParameters() override;
  ShardedParameters(const ShardedParameters&) = delete;
  ShardedParameters& operator=(const ShardedParameters&) = delete;

  std::string name() const override { return "gather"; }
  void beforeStep(int64_t step) override;
  void beforeBackward(bool completes) override;
  void gradientsReady() override;
  void beforeEvaluation() override;

  // A collective (every rank calls it): every trainable parameter whole on every rank, until
  // releaseOthers(). Does nothing when the model is whole already.
  void gatherAll();
  // Releases the trainable parameters outside this rank's shard (no communication).
  void releaseOthers();
  // The bytes the storages of the trainable parameters hold now on this rank.
  int64_t heldParameterBytes() const;
  // The bytes of this rank's own shard of them: what heldParameterBytes() is between steps.
  int64_t ownParameterBytes() const;

 private:
  torch::Tensor runLayer(size_t layer, torch::nn::AnyModule& module, torch::Tensor x);
  void gatherLayer(size_t layer);
  void releaseLayer(size_t layer);
  void gradientArrived(size_t layer);
  void reduceLayerGradients(size_t layer);
  std::vector<int> ownersOf(size_t layer) const;  // the ranks owning some of its parameters, ascending

  RankGroup& m_group;
  LayerNetModel& m_model;
  std::vector<torch::Tensor> m_params;       // trainable, in the model's order (as the partition's)
  std::vector<int> m_owner;                  // per parameter
  std::vector<size_t> m_nbytes;              // per parameter: its storage's bytes when whole
  std::vector<std::vector<size_t>> m_layer;  // per top-level layer: its trainable parameters
  std::vector<bool> m_gathered;              // per layer: the non-owned parameters' values are present
  std::vector<size_t> m_pending;             // per layer: gradients still to come in this backward
  std::vector<bool> m_reduced;               // per layer: its gradients reduced in this step
  bool m_reduce_in_backward = false;         // the step's last backward (earlier ones accumulate locally)
  bool m_whole = true;                       // after gatherAll (and before the first step)
  std::vector<std::pair<compat::GradAccumulatorPtr, uintptr_t>> m_hooks;
  std::shared_ptr<ShardedParameters*> m_alive = std::make_shared<ShardedParameters*>(this);  // for the runner
};

}  // namespace wb
