#include "evaluation/evaluation.h"

namespace wb {

SplitMeasure measureSplit(Model& model, const DataSplit& split, int64_t batch_size,
                          const torch::Device& device, const Task& task) {
  SplitMeasure measure;
  measure.samples = split.size();
  measure.figure_sums.assign(task.sumNames().size(), 0.0);
  if (measure.samples == 0) return measure;
  torch::NoGradGuard no_grad;
  model.train(false);
  const auto options = torch::TensorOptions().dtype(torch::kFloat64).device(device);
  auto loss_sum = torch::zeros({}, options);
  auto figure_sums = torch::zeros({static_cast<int64_t>(measure.figure_sums.size())}, options);
  SplitBatches batches(split, batch_size);
  while (std::optional<Batch> batch = batches.next()) {
    auto xb = batch->x.to(device, /*non_blocking=*/true);
    auto yb = batch->y.to(device, /*non_blocking=*/true);
    auto outputs = model.forward(xb).to(torch::kFloat32);
    loss_sum += task.lossSum(outputs, yb);
    figure_sums += task.figureSums(outputs, yb);
  }
  measure.loss_sum = loss_sum.item<double>();
  const torch::Tensor sums = figure_sums.to(torch::kCPU);
  for (size_t i = 0; i < measure.figure_sums.size(); ++i) {
    measure.figure_sums[i] = sums[static_cast<int64_t>(i)].item<double>();
  }
  return measure;
}

EvalResult evalResult(const SplitMeasure& measure, const Task& task) {
  EvalResult result;
  result.samples = measure.samples;
  if (measure.samples == 0) return result;
  result.loss = measure.loss_sum / static_cast<double>(measure.samples);
  result.figures = task.figures(measure.figure_sums, measure.samples);
  result.accuracy = figureNamed(result.figures, "accuracy", 0.0);
  return result;
}

EvalResult evaluateModel(Model& model, const DataSplit& split, int64_t batch_size,
                         const torch::Device& device, const Task& task) {
  return evalResult(measureSplit(model, split, batch_size, device, task), task);
}

}  // namespace wb
