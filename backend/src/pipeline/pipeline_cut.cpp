// proposePipelineCut (pipeline/pipeline_cut.h): a contiguous cut by dynamic programming over (stage, layers
// so far). Two passes, because "slowest stage, then evenness" is not one additive cost: the first finds the
// least possible slowest stage; the second, allowed only stages no slower than that, the least sum of
// squares.
#include "pipeline/pipeline_cut.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace wb {
namespace pipeline_cut_detail {

constexpr int64_t kNoCut = std::numeric_limits<int64_t>::max();

std::string mebibytes(int64_t bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return text;
}

// Prefix sums over the layers: stage [j, i) costs time[i] - time[j], and on stage k's device
// state[i] - state[j] + (activations[i] - activations[j]) × its samples × bytes per activation.
struct Prefix {
  std::vector<int64_t> time, state, activations, parameters, flops;
};

int64_t stageSamples(const PipelineCutRequest& request, size_t stage) {
  return request.stage_samples.empty() ? request.batch : request.stage_samples[stage];
}

int64_t stageMemory(const PipelineCutRequest& request, const Prefix& sums, size_t stage, size_t j, size_t i) {
  return sums.state[i] - sums.state[j] +
         (sums.activations[i] - sums.activations[j]) * stageSamples(request, stage) *
             request.bytes_per_activation;
}

Prefix prefixSums(const PipelineCutRequest& request, bool by_flops) {
  Prefix sums;
  const size_t count = request.layers.size();
  for (auto* column : {&sums.time, &sums.state, &sums.activations, &sums.parameters, &sums.flops})
    column->assign(count + 1, 0);
  for (size_t i = 0; i < count; ++i) {
    const PipelineLayerCost& layer = request.layers[i];
    sums.time[i + 1] = sums.time[i] + (by_flops ? layer.flops : layer.parameters);
    sums.state[i + 1] = sums.state[i] + layer.parameters * request.bytes_per_parameter;
    sums.activations[i + 1] = sums.activations[i] + layer.output_elements;
    sums.parameters[i + 1] = sums.parameters[i] + layer.parameters;
    sums.flops[i + 1] = sums.flops[i] + std::max<int64_t>(layer.flops, 0);
  }
  return sums;
}

bool stageFits(const PipelineCutRequest& request, size_t stage, int64_t memory) {
  if (request.device_memory.empty()) return true;
  const int64_t limit = request.device_memory[stage];
  return limit <= 0 || memory <= limit;
}

// best[k][i]: the least slowest stage of the first i layers cut into k stages (kNoCut: no cut fits).
int64_t leastSlowestStage(const PipelineCutRequest& request, const Prefix& sums) {
  const size_t count = request.layers.size();
  const size_t stages = static_cast<size_t>(request.devices);
  std::vector<std::vector<int64_t>> best(stages + 1, std::vector<int64_t>(count + 1, kNoCut));
  best[0][0] = 0;
  for (size_t k = 1; k <= stages; ++k) {
    for (size_t i = k; i + (stages - k) <= count; ++i) {
      for (size_t j = k - 1; j < i; ++j) {
        if (best[k - 1][j] == kNoCut || !stageFits(request, k - 1, stageMemory(request, sums, k - 1, j, i)))
          continue;
        best[k][i] = std::min(best[k][i], std::max(best[k - 1][j], sums.time[i] - sums.time[j]));
      }
    }
  }
  return best[stages][count];
}

// The stages' starts of the most even cut whose stages all take at most `slowest`.
std::vector<size_t> mostEvenStarts(const PipelineCutRequest& request, const Prefix& sums, int64_t slowest) {
  const size_t count = request.layers.size();
  const size_t stages = static_cast<size_t>(request.devices);
  const double none = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> squares(stages + 1, std::vector<double>(count + 1, none));
  std::vector<std::vector<size_t>> start(stages + 1, std::vector<size_t>(count + 1, 0));
  squares[0][0] = 0;
  for (size_t k = 1; k <= stages; ++k) {
    for (size_t i = k; i + (stages - k) <= count; ++i) {
      for (size_t j = k - 1; j < i; ++j) {
        const int64_t time = sums.time[i] - sums.time[j];
        if (squares[k - 1][j] == none || time > slowest) continue;
        if (!stageFits(request, k - 1, stageMemory(request, sums, k - 1, j, i))) continue;
        const double candidate = squares[k - 1][j] + static_cast<double>(time) * static_cast<double>(time);
        if (candidate < squares[k][i]) {  // strictly: the earliest start wins a tie
          squares[k][i] = candidate;
          start[k][i] = j;
        }
      }
    }
  }
  std::vector<size_t> starts(stages);
  size_t end = count;
  for (size_t k = stages; k >= 1; --k) {
    starts[k - 1] = start[k][end];
    end = starts[k - 1];
  }
  return starts;
}

std::string requestProblem(const PipelineCutRequest& request) {
  const size_t count = request.layers.size();
  if (request.devices < 1) return "a pipeline needs at least one device";
  if (!request.device_memory.empty() && request.device_memory.size() != static_cast<size_t>(request.devices))
    return "the devices' memory lists " + std::to_string(request.device_memory.size()) + " devices for " +
           std::to_string(request.devices) + " stages";
  if (!request.stage_samples.empty() && request.stage_samples.size() != static_cast<size_t>(request.devices))
    return "the stages' samples list " + std::to_string(request.stage_samples.size()) + " stages for " +
           std::to_string(request.devices) + " devices";
  if (count < static_cast<size_t>(request.devices))
    return "the model has " + std::to_string(count) + " top-level layers: it cannot be cut into " +
           std::to_string(request.devices) + " stages, one per device (use at most " + std::to_string(count) +
           " devices)";
  return {};
}

// Why no cut fits the memory: one layer larger than every device, or the whole larger than their sum.
std::string memoryProblem(const PipelineCutRequest& request, const Prefix& sums) {
  int64_t largest_device = 0;
  int64_t together = 0;
  for (int64_t memory : request.device_memory) {
    largest_device = std::max(largest_device, memory);
    together += memory;
  }
  const int64_t fewest_samples =
      request.stage_samples.empty()
          ? request.batch
          : *std::min_element(request.stage_samples.begin(), request.stage_samples.end());
  for (size_t i = 0; i < request.layers.size(); ++i) {
    const int64_t memory =
        sums.state[i + 1] - sums.state[i] +
        (sums.activations[i + 1] - sums.activations[i]) * fewest_samples * request.bytes_per_activation;
    if (memory > largest_device)
      return "layer '" + request.layers[i].name + "' alone needs " + mebibytes(memory) +
             ", more than any device holds (" + mebibytes(largest_device) + ")";
  }
  return "no cut of the " + std::to_string(request.layers.size()) + " layers into " +
         std::to_string(request.devices) + " stages fits the devices' memory: the model needs " +
         mebibytes(stageMemory(request, sums, 0, 0, request.layers.size())) + ", the devices hold " +
         mebibytes(together) + " together; use more devices or a smaller batch";
}

}  // namespace pipeline_cut_detail

PipelineCut proposePipelineCut(const PipelineCutRequest& request) {
  using namespace pipeline_cut_detail;
  PipelineCut cut;
  cut.problem = requestProblem(request);
  if (!cut.ok()) return cut;
  cut.balanced_by_flops = std::all_of(request.layers.begin(), request.layers.end(),
                                      [](const PipelineLayerCost& layer) { return layer.flops >= 0; });
  const Prefix sums = prefixSums(request, cut.balanced_by_flops);
  cut.slowest_stage = leastSlowestStage(request, sums);
  if (cut.slowest_stage == kNoCut) {
    cut.slowest_stage = 0;
    cut.problem = memoryProblem(request, sums);
    return cut;
  }
  const std::vector<size_t> starts = mostEvenStarts(request, sums, cut.slowest_stage);
  for (size_t k = 0; k < starts.size(); ++k) {
    PipelineStage stage;
    stage.first = starts[k];
    const size_t end = k + 1 < starts.size() ? starts[k + 1] : request.layers.size();
    stage.last = end - 1;
    stage.first_name = request.layers[stage.first].name;
    stage.last_name = request.layers[stage.last].name;
    stage.parameters = sums.parameters[end] - sums.parameters[stage.first];
    stage.flops = sums.flops[end] - sums.flops[stage.first];
    stage.memory_bytes = stageMemory(request, sums, k, stage.first, end);
    cut.stages.push_back(stage);
  }
  return cut;
}

std::vector<PipelineLayerCost> pipelineLayers(const ModelSummary& summary) {
  std::vector<PipelineLayerCost> layers;
  if (summary.torchscript) return layers;
  for (const ModelSummaryRow& row : summary.rows) {
    if (row.depth != 0) continue;
    PipelineLayerCost layer;
    layer.name = row.name;
    layer.parameters = row.parameters;
    layer.flops = row.flops;
    layer.output_elements = 1;
    for (int64_t size : row.shape) layer.output_elements *= size;
    layers.push_back(layer);
  }
  return layers;
}

}  // namespace wb
