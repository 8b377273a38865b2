#pragma once
// The ordered list of a step's parts. Each point of the step is passed to every part in list order, so the
// order is the contract: data parallel's allreduce first (the gradients are the group's before anything reads
// them), then the parts that change gradients or weights (masks after gradual pruning has chosen them), then
// fp16 loss scaling (it unscales the gradients), then clipping (it measures what the optimizer will see).
// addConfiguredParts (configured_parts.h) appends the last two as train.* asks.

#include <memory>
#include <string>
#include <vector>

#include "step/step_part.h"
#include "task/task.h"

namespace wb {

class StepParts {
 public:
  StepParts() = default;
  StepParts& add(std::shared_ptr<StepPart> part);
  StepParts& add(const StepParts& parts);  // each of them, in their order
  bool empty() const { return m_parts.empty(); }
  std::vector<std::string> names() const;
  // The first part called `name`, or null: for a part that must tell another something (sharded gradients
  // give clipping the group's norm).
  StepPart* find(const std::string& name) const;
  // The names of the parts a CUDA graph cannot record (StepPart::capturable).
  std::vector<std::string> uncapturable() const;

  void beforeStep(int64_t step);
  // The first part's loss that defines one (a distillation's); the task's otherwise.
  torch::Tensor loss(const torch::Tensor& outputs, const Batch& batch, const Task& task);
  torch::Tensor lossForBackward(torch::Tensor loss);
  void beforeBackward(bool completes);
  void gradientsReady();
  // The first part's optimizer step that takes one; else the optimizer's: its device step where it has one
  // (optim/device_step.h; what a CUDA graph can capture), optimizer.step() otherwise.
  void optimizerStep(torch::optim::Optimizer& optimizer);
  void afterStep(int64_t step);
  void beforeEvaluation();

  // Summed over the parts that measure (-1 when none does).
  CommunicationTimes takeCommunicationTimes();
  // The last part's that measured any (clipping's).
  GradNormWindow takeGradNorm();

  PartState saveState() const;
  void loadState(const PartState& state);

 private:
  std::vector<std::shared_ptr<StepPart>> m_parts;
};

}  // namespace wb
