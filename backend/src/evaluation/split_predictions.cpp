#include "evaluation/split_predictions.h"

#include <algorithm>
#include <cmath>

namespace wb {
namespace {

// The sample as 8-bit pixels, height x width x channels: x * std + mean per channel undoes the normalization
// applied at load (pixel / 255 in [0, 1] units), so this is the image the file holds.
void fillPixels(MisclassifiedSample& sample, const torch::Tensor& image, const Normalization& norm) {
  if (image.dim() != 3 || (image.size(0) != 1 && image.size(0) != 3)) return;
  const int64_t channels = image.size(0);
  torch::Tensor restored = image.to(torch::kFloat64).clone();
  for (int64_t c = 0; c < channels; ++c) {
    const auto ci = static_cast<size_t>(c);
    const double mean = ci < norm.mean.size() ? norm.mean[ci] : 0.0;
    const double deviation = ci < norm.std.size() ? norm.std[ci] : 1.0;
    restored[c].mul_(deviation).add_(mean);
  }
  const torch::Tensor bytes =
      restored.mul(255.0).round().clamp(0, 255).to(torch::kUInt8).permute({1, 2, 0}).contiguous();
  sample.channels = static_cast<int>(channels);
  sample.height = static_cast<int>(image.size(1));
  sample.width = static_cast<int>(image.size(2));
  const uint8_t* data = bytes.data_ptr<uint8_t>();
  sample.pixels.assign(data, data + bytes.numel());
}

std::vector<int64_t> toVector(const torch::Tensor& t) {
  const torch::Tensor c = t.to(torch::kCPU, torch::kLong).contiguous();
  return std::vector<int64_t>(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

}  // namespace

SplitPredictions predictSplit(const ForwardFn& forward, const DataSplit& split, int64_t batch_size,
                              const torch::Device& device, const EvaluationOptions& options) {
  torch::NoGradGuard no_grad;
  const int64_t n = split.size();
  std::vector<torch::Tensor> predicted, confidence, truth_probability;
  auto loss_sum = torch::zeros({}, torch::TensorOptions().dtype(torch::kFloat64).device(device));
  SplitBatches batches(split, batch_size);
  while (true) {
    if (options.cancel && options.cancel->load()) throw EvaluationCancelled();
    const std::optional<Batch> batch = batches.next();
    if (!batch) break;
    const int64_t len = batch->y.size(0);
    const int64_t start = batches.begin();
    const torch::Tensor xb = batch->x.to(device, /*non_blocking=*/true);
    const torch::Tensor yb = batch->y.to(device, /*non_blocking=*/true);
    const torch::Tensor logits = forward(xb).to(torch::kFloat32);
    loss_sum += torch::nn::functional::cross_entropy(
                    logits, yb, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .to(torch::kFloat64);
    const torch::Tensor probabilities = logits.softmax(1);
    const torch::Tensor best = logits.argmax(1);
    predicted.push_back(best.to(torch::kCPU));
    confidence.push_back(probabilities.gather(1, best.unsqueeze(1)).squeeze(1).to(torch::kCPU));
    truth_probability.push_back(probabilities.gather(1, yb.unsqueeze(1)).squeeze(1).to(torch::kCPU));
    if (options.progress) options.progress(start + len, n);
  }
  SplitPredictions out;
  out.predicted = n > 0 ? torch::cat(predicted) : torch::zeros({0}, torch::kLong);
  out.confidence = n > 0 ? torch::cat(confidence) : torch::zeros({0});
  out.truth_probability = n > 0 ? torch::cat(truth_probability) : torch::zeros({0});
  out.loss = n > 0 ? loss_sum.item<double>() / static_cast<double>(n) : 0.0;
  return out;
}

EvaluationReport evaluationReport(const SplitPredictions& predictions, const Dataset& data,
                                  const EvaluationOptions& options) {
  EvaluationReport report;
  report.loss = predictions.loss;
  report.class_names = data.class_names;
  const std::vector<int64_t> truth = toVector(data.test.y);
  const std::vector<int64_t> predicted = toVector(predictions.predicted);
  report.figures = classificationFigures(truth, predicted, report.class_names);
  report.misclassified_total = report.figures.samples - report.figures.correct;

  const torch::Tensor confidence = predictions.confidence.to(torch::kFloat32).contiguous();
  const torch::Tensor truth_probability = predictions.truth_probability.to(torch::kFloat32).contiguous();
  const float* conf = confidence.data_ptr<float>();
  std::vector<int64_t> wrong;
  for (size_t i = 0; i < truth.size(); ++i) {
    if (truth[i] != predicted[i]) wrong.push_back(static_cast<int64_t>(i));
  }
  // Most confident first; ties by test index so the order is the same on every run.
  const auto keep = static_cast<size_t>(
      std::clamp<int64_t>(options.max_misclassified, 0, static_cast<int64_t>(wrong.size())));
  std::partial_sort(wrong.begin(), wrong.begin() + static_cast<std::ptrdiff_t>(keep), wrong.end(),
                    [conf](int64_t a, int64_t b) { return conf[a] != conf[b] ? conf[a] > conf[b] : a < b; });
  for (size_t k = 0; k < keep; ++k) {
    const int64_t i = wrong[k];
    MisclassifiedSample sample;
    sample.index = i;
    sample.truth = truth[static_cast<size_t>(i)];
    sample.predicted = predicted[static_cast<size_t>(i)];
    sample.confidence = conf[i];
    sample.truth_probability = truth_probability.data_ptr<float>()[i];
    fillPixels(sample, data.test.inputs(i, 1)[0], data.normalization);
    if (data.test.source) sample.file = data.test.source->sampleName(i);
    report.misclassified.push_back(std::move(sample));
  }
  return report;
}

}  // namespace wb
