#include "task/classification_task.h"

namespace wb {

torch::Tensor ClassificationTask::loss(const torch::Tensor& outputs, const torch::Tensor& targets) const {
  return torch::nn::functional::cross_entropy(outputs, targets);
}

torch::Tensor ClassificationTask::lossSum(const torch::Tensor& outputs, const torch::Tensor& targets) const {
  namespace F = torch::nn::functional;
  return F::cross_entropy(outputs.to(torch::kFloat32), targets,
                          F::CrossEntropyFuncOptions().reduction(torch::kSum))
      .to(torch::kFloat64);
}

torch::Tensor ClassificationTask::figureSums(const torch::Tensor& outputs,
                                             const torch::Tensor& targets) const {
  return outputs.argmax(1).eq(targets).sum().to(torch::kFloat64).reshape({1});
}

std::vector<TaskFigure> ClassificationTask::figures(const std::vector<double>& sums, int64_t samples) const {
  const double correct = sums.empty() ? 0.0 : sums[0];
  return {{"accuracy", samples > 0 ? correct / static_cast<double>(samples) : 0.0}};
}

}  // namespace wb
