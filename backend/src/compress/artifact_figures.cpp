#include "compress/artifact_figures.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "model/layer_list.h"
#include "workbench/system_info.h"

namespace wb {
namespace {

struct TestScore {
  double loss = 0;
  double accuracy = 0;
};

// Batched over views of the test split; the sums stay tensors until the end.
TestScore scoreOnTest(InferenceModel& model, const Dataset& data) {
  const int64_t n = data.test_x.size(0);
  if (n == 0) return {-1, -1};
  torch::NoGradGuard no_grad;
  double loss_sum = 0;
  int64_t correct = 0;
  const int64_t batch = 500;
  for (int64_t start = 0; start < n; start += batch) {
    const int64_t end = std::min(n, start + batch);
    const torch::Tensor x = data.test_x.slice(0, start, end);
    const torch::Tensor y = data.test_y.slice(0, start, end);
    const torch::Tensor logits = model.forward(x).to(torch::kFloat32);
    loss_sum += torch::nn::functional::cross_entropy(
                    logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                    .item<double>();
    correct += logits.argmax(1).eq(y).sum().item<int64_t>();
  }
  return {loss_sum / static_cast<double>(n), static_cast<double>(correct) / static_cast<double>(n)};
}

}  // namespace

double medianLatencyMs(InferenceModel& model, const torch::Tensor& x, int64_t batch, int64_t runs) {
  using Clock = std::chrono::steady_clock;
  torch::NoGradGuard no_grad;
  // Batches larger than the split repeat its samples: latency depends on the shape, not the values.
  torch::Tensor input = x.slice(0, 0, std::min<int64_t>(batch, x.size(0)));
  while (input.size(0) < batch) input = torch::cat({input, input}).slice(0, 0, batch);
  input = input.contiguous();
  for (int i = 0; i < 3; ++i) model.forward(input);  // warm-up: allocations, packed weights, caches
  std::vector<double> times;
  for (int64_t i = 0; i < std::max<int64_t>(1, runs); ++i) {
    const auto t0 = Clock::now();
    model.forward(input);
    times.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  const size_t mid = times.size() / 2;
  return times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

ArtifactFigures measureArtifact(const ModelArtifact& artifact, const std::string& folder, const Dataset& data,
                                const MeasureOptions& options) {
  ArtifactFigures f;
  f.name = artifact.name;
  f.source = artifact.source;
  const int previous_threads = at::get_num_threads();
  if (options.threads > 0) at::set_num_threads(static_cast<int>(options.threads));
  auto model = makeInferenceModel(artifact);
  const TestScore score = scoreOnTest(*model, data);
  f.test_loss = score.loss;
  f.test_accuracy = score.accuracy;
  const torch::Tensor sample_source = data.test_x.size(0) > 0 ? data.test_x : data.train_x;
  f.latency_ms_batch1 = medianLatencyMs(*model, sample_source, 1, options.latency_runs);
  f.latency_ms_batch64 = medianLatencyMs(*model, sample_source, 64, options.latency_runs);
  at::set_num_threads(previous_threads);
  const ParameterCounts counts = countParameters(artifact);
  f.parameters = counts.total;
  f.nonzero_parameters = counts.nonzero;
  std::error_code ec;
  const auto size = std::filesystem::file_size(std::filesystem::path(folder) / "weights.pt", ec);
  f.size_bytes = ec ? 0 : static_cast<int64_t>(size);
  f.flops_per_sample = artifact.layers.is_null() ? 0 : flopsPerSample(artifactLayers(artifact), artifact.input_shape);
  f.weights_dtype = artifact.isQuantized() ? "int8" : "float32";
  return f;
}

}  // namespace wb
