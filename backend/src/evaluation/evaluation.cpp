#include "evaluation/evaluation.h"

namespace wb {

EvalResult evaluateModel(Model& model, const torch::Tensor& x, const torch::Tensor& y, int64_t batch_size,
                         const torch::Device& device) {
  return evaluateModel(model, DataSplit{x, y, nullptr}, batch_size, device);
}

EvalResult evaluateModel(Model& model, const DataSplit& split, int64_t batch_size,
                         const torch::Device& device) {
  EvalResult result;
  const int64_t n = split.size();
  result.samples = n;
  if (n == 0) return result;
  torch::NoGradGuard no_grad;
  model.train(false);
  auto loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(device));
  auto correct = torch::zeros({}, torch::TensorOptions().dtype(torch::kInt64).device(device));
  SplitBatches batches(split, batch_size);
  while (std::optional<Batch> batch = batches.next()) {
    auto xb = batch->x.to(device, /*non_blocking=*/true);
    auto yb = batch->y.to(device, /*non_blocking=*/true);
    auto logits = model.forward(xb).to(torch::kFloat32);
    loss_sum += torch::nn::functional::cross_entropy(
                    logits, yb, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .to(torch::kFloat64);
    correct += logits.argmax(1).eq(yb).sum();
  }
  result.loss = loss_sum.item<double>() / static_cast<double>(n);
  result.accuracy = static_cast<double>(correct.item<int64_t>()) / static_cast<double>(n);
  return result;
}

}  // namespace wb
