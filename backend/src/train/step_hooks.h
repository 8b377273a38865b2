#pragma once
// Parts of a training step that other features plug in, so the loop gains no branch per feature: the loss
// (distillation blends a teacher's soft targets in), what happens once gradients are ready (pruning masks zero
// the gradients of pruned weights; data-parallel allreduce will go here), and after each optimizer step
// (masks keep pruned weights at exactly zero; gradual pruning raises the sparsity on its schedule).

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <utility>

#include "data/batch_loader.h"

namespace wb {

struct StepHooks {
  // An optimizer step begins (before its first micro-batch); `step` counts the steps done so far. Data
  // parallel: rank 0's buffers are broadcast (DDP's broadcast_buffers) and this step's random streams seeded.
  std::function<void(int64_t step)> before_step;
  // Before each backward; `completes` when it is the last micro-batch of the step (data parallel: only then
  // are gradients communicated).
  std::function<void(bool completes)> before_backward;
  // The loss of a batch from the model's logits, run under the step's autocast. Empty = cross-entropy
  // with the labels.
  std::function<torch::Tensor(const torch::Tensor& logits, const Batch& batch)> loss;
  // Gradients of the optimizer step are complete (after the last accumulated backward, before unscaling,
  // clipping and the step).
  std::function<void()> gradients_ready;
  // An optimizer step was taken; `step` counts the steps done so far.
  std::function<void(int64_t step)> after_step;
  // Before validation. Data parallel: rank 0's buffers (batch norm statistics) to every rank, so the ranks
  // validate the model that is saved.
  std::function<void()> before_evaluation;
  // Data parallel: the communication time since the last call (busy, hidden behind backward), for the metrics.
  std::function<std::pair<double, double>()> communication_ms;
};

}  // namespace wb
