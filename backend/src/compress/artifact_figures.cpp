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

// Batched over views of the test split (an artifact runs on the CPU: a read per batch costs nothing).
TestScore scoreOnTest(InferenceModel& model, const Dataset& data, const Task& task) {
  const int64_t n = data.test.size();
  if (n == 0) return {-1, -1};
  torch::NoGradGuard no_grad;
  double loss_sum = 0;
  std::vector<double> figure_sums(task.sumNames().size(), 0.0);
  SplitBatches batches(data.test, 500);
  while (std::optional<Batch> batch = batches.next()) {
    const torch::Tensor outputs = model.forward(batch->x).to(torch::kFloat32);
    loss_sum += task.lossSum(outputs, batch->y).item<double>();
    const torch::Tensor sums = task.figureSums(outputs, batch->y);
    for (size_t i = 0; i < figure_sums.size(); ++i)
      figure_sums[i] += sums[static_cast<int64_t>(i)].item<double>();
  }
  return {loss_sum / static_cast<double>(n), figureNamed(task.figures(figure_sums, n), "accuracy", 0.0)};
}

}  // namespace

namespace {

// Batches larger than the split repeat its samples: latency depends on the shape, not the values.
torch::Tensor inputOf(const torch::Tensor& x, int64_t batch) {
  torch::Tensor input = x.slice(0, 0, std::min<int64_t>(batch, x.size(0)));
  while (input.size(0) < batch) input = torch::cat({input, input}).slice(0, 0, batch);
  return input.contiguous();
}

double median(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  const size_t mid = times.size() / 2;
  return times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

}  // namespace

std::vector<Latency> interleavedLatencies(const std::vector<InferenceModel*>& models, const torch::Tensor& x,
                                          const MeasureOptions& options) {
  using Clock = std::chrono::steady_clock;
  torch::NoGradGuard no_grad;
  const int previous_threads = at::get_num_threads();
  if (options.threads > 0) at::set_num_threads(static_cast<int>(options.threads));
  std::vector<Latency> out(models.size());
  for (const int64_t batch : {int64_t{1}, int64_t{64}}) {
    const torch::Tensor input = inputOf(x, batch);
    for (InferenceModel* m : models) {
      for (int i = 0; i < 3; ++i) m->forward(input);  // warm-up: allocations, packed weights, caches
    }
    std::vector<std::vector<double>> times(models.size());
    for (int64_t round = 0; round < std::max<int64_t>(1, options.latency_runs); ++round) {
      for (size_t i = 0; i < models.size(); ++i) {
        const auto t0 = Clock::now();
        models[i]->forward(input);
        times[i].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
    }
    for (size_t i = 0; i < models.size(); ++i)
      (batch == 1 ? out[i].batch1_ms : out[i].batch64_ms) = median(times[i]);
  }
  at::set_num_threads(previous_threads);
  return out;
}

ArtifactFigures measureArtifact(const ModelArtifact& artifact, InferenceModel& model,
                                const std::string& folder, const Dataset& data, const Task& task) {
  ArtifactFigures f;
  f.name = artifact.name;
  f.source = artifact.source;
  const TestScore score = scoreOnTest(model, data, task);
  f.test_loss = score.loss;
  f.test_accuracy = score.accuracy;
  const ParameterCounts counts = countParameters(artifact);
  f.parameters = counts.total;
  f.nonzero_parameters = counts.nonzero;
  std::error_code ec;
  const auto size = std::filesystem::file_size(std::filesystem::path(folder) / "weights.pt", ec);
  f.size_bytes = ec ? 0 : static_cast<int64_t>(size);
  f.flops_per_sample =
      artifact.layers.is_null() ? 0 : flopsPerSample(artifactLayers(artifact), artifact.input_shape);
  f.weights_dtype = artifact.isQuantized() ? "int8" : "float32";
  return f;
}

}  // namespace wb
