#pragma once
// One class per sample (an image, a table row): targets are class indices (int64 [N]), outputs are logits
// [N, classes]; the loss is cross-entropy and the figure is accuracy, the share of samples whose largest
// logit is their class (torch.argmax, ties to the first, as a Python loop's `(logits.argmax(1) == y).sum()`).

#include "task/task.h"

namespace wb {

class ClassificationTask final : public Task {
 public:
  TaskKind kind() const override { return TaskKind::Classification; }
  torch::Tensor loss(const torch::Tensor& outputs, const torch::Tensor& targets) const override;
  torch::Tensor lossSum(const torch::Tensor& outputs, const torch::Tensor& targets) const override;
  // "correct": the samples whose prediction is their class.
  std::vector<std::string> sumNames() const override { return {"correct"}; }
  torch::Tensor figureSums(const torch::Tensor& outputs, const torch::Tensor& targets) const override;
  // "accuracy": correct / samples (0 for no samples).
  std::vector<TaskFigure> figures(const std::vector<double>& sums, int64_t samples) const override;
};

}  // namespace wb
