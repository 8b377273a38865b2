#pragma once
// A part of the training step: what one feature (data parallel's allreduce, pruning masks, gradual pruning, a
// distillation loss, fp16 loss scaling, gradient clipping) does at the points of a step it cares about. The
// step calls every part at each point in the order of its list, so parts compose instead of replacing each
// other, and a new feature is a new part in a list, not a branch in the loop. Every point has a default that
// does nothing.

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/batch_loader.h"

namespace wb {

// Tensors a part keeps in a checkpoint (pruning masks), by name; restored before the resumed step.
using PartState = std::vector<std::pair<std::string, torch::Tensor>>;

// The gradient norms of the steps since the last report (clipping measures them): the mean of the finite
// ones, and how many were inf/NaN. One fp16 overflow (a step the loss scaler skips) would make a mean over
// all of them inf for the whole window, so those are counted apart.
struct GradNormWindow {
  std::optional<double> mean;  // nullopt: nothing measured, or no finite norm
  int64_t nonfinite = 0;
};

// Collective time since the last report, in milliseconds: busy (the collectives' own time) and hidden (the
// part of it that overlapped backward). -1 = not measured.
struct CommunicationTimes {
  double busy_ms = -1;
  double hidden_ms = -1;
};

class StepPart {
 public:
  virtual ~StepPart() = default;
  // For logs and the tests that pin the order: "allreduce", "masks", ...
  virtual std::string name() const = 0;
  // Whether a CUDA graph may record what the part does at the points from beforeBackward to gradientsReady
  // (and its optimizerStep): device work only — no host read, no host state that must change per step, no
  // allocation after the first step — so that replaying the graph does what calling the part would.
  virtual bool capturable() const { return false; }

  // An optimizer step begins, before its first micro-batch; `step` counts the steps done so far.
  virtual void beforeStep(int64_t /*step*/) {}
  // The loss of a micro-batch from the model's outputs, under the step's autocast. A part that defines the
  // loss returns it; the first part in the list that does wins, and without one the loss is the task's
  // (task/task.h).
  virtual std::optional<torch::Tensor> loss(const torch::Tensor& /*outputs*/, const Batch& /*batch*/) {
    return std::nullopt;
  }
  // The loss backward starts from: each part in turn may change it (fp16 loss scaling multiplies it).
  virtual torch::Tensor lossForBackward(torch::Tensor loss) { return loss; }
  // Before each backward; `completes` on the last micro-batch of the step (data parallel communicates then).
  virtual void beforeBackward(bool /*completes*/) {}
  // The step's gradients are complete (after the last backward), before the optimizer step. With fp16 loss
  // scaling they are scaled for the parts before the scaling part, true gradients for those after it.
  virtual void gradientsReady() {}
  // A part that takes the optimizer step itself (fp16 loss scaling: through the scaler, which leaves
  // everything as it was when a gradient is inf/NaN) returns true; the first that does wins. Without one the
  // optimizer steps.
  virtual bool optimizerStep(torch::optim::Optimizer& /*optimizer*/) { return false; }
  // The optimizer step is done; `step` counts steps done. Also after a step fp16 loss scaling skipped on the
  // device: the host does not know of it (it is counted with the metrics), so a part here must be right
  // after either (masks applied again to unchanged weights are unchanged).
  virtual void afterStep(int64_t /*step*/) {}
  // Before validation.
  virtual void beforeEvaluation() {}

  // Metrics, read when a window of steps is reported (never per step: reading may synchronize the device).
  virtual CommunicationTimes takeCommunicationTimes() { return {}; }
  // The gradient norms of the steps since the last call (clipping measures them); nothing by default.
  virtual GradNormWindow takeGradNorm() { return {}; }

  // What the part carries across a checkpoint, and restoring it.
  virtual void saveState(PartState& /*into*/) const {}
  virtual void loadState(const PartState& /*from*/) {}
};

}  // namespace wb
