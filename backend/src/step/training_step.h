#pragma once
// The one body of an optimizer step, shared by the run (and a compression pass's fine-tuning), the finders
// and the benchmark: zero the gradients and set the learning rate, then per micro-batch the forward under
// autocast, the loss and the backward of its share of the step's mean, and last the optimizer step. What
// features add to it (fp16 loss scaling, clipping, allreduce, masks, a distillation loss) is in its parts
// (step_parts.h); what a caller does around it (loading batches, metrics, checkpoints, live control) is the
// caller's.

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/batch_loader.h"
#include "model/model.h"
#include "step/step_parts.h"
#include "task/task.h"

namespace wb {

class TrainingStep {
 public:
  // `task`: what the model learns (its loss, unless a part defines one). `amp_dtype`: autocast's dtype
  // (train.amp), none for float32. The references must outlive the step.
  TrainingStep(Model& model, torch::optim::Optimizer& optimizer, StepParts& parts, const Task& task,
               torch::Device device, std::optional<c10::ScalarType> amp_dtype);
  virtual ~TrainingStep() = default;

  // Opens an optimizer step; `step` counts the steps done so far.
  void begin(int64_t step, double lr);
  // With one learning rate per optimizer group (LrSchedule::groupLrsAt), or one for all.
  void begin(int64_t step, const std::vector<double>& lrs);
  // The step's learning rate in the optimizer (and on the device, for a device step); begin() does it, a
  // replayed graph needs it alone.
  void setStepLearningRate(double lr);
  void setStepLearningRates(const std::vector<double>& lrs);

  struct MicroBatch {
    torch::Tensor outputs;  // the model's, detached
    torch::Tensor loss;     // detached, the batch's mean loss before any division or scaling
  };
  // Forward, loss and backward of one of the step's `micro_batches` batches (its loss is divided by that
  // count for backward, so accumulated gradients are the mean's); `completes` on the last one of the step.
  // A pipeline (pipeline/pipeline_step.h) runs it over its stages instead.
  virtual MicroBatch forwardBackward(const Batch& batch, int64_t micro_batches, bool completes);
  // What the step does beyond the plain one, for the run's log once before the first step (a pipeline's
  // stages); empty for the plain step.
  virtual std::string describe() { return {}; }
  // What it measured since the last call, for the log (a pipeline's idle share per stage); empty if nothing.
  virtual std::string takeReport() { return {}; }

  // The parts' gradients-ready point, the optimizer step (a part's, as fp16 loss scaling takes it) and the
  // parts' after-step point with `steps_done` (the count including this step). Under fp16 a step with
  // inf/NaN gradients changes nothing, and the host does not learn of it here (no read of the device): it
  // counts as a step, as in a Python loop, and the scaler counts it among the skipped.
  void finish(int64_t steps_done);

 private:
  Model& m_model;
  torch::optim::Optimizer& m_optimizer;
  StepParts& m_parts;
  const Task& m_task;
  torch::Device m_device;
  std::optional<c10::ScalarType> m_amp_dtype;
};

}  // namespace wb
