// benchmarkTraining (declared in workbench/training_run.h): steady-state training steps, timed, no run
// folder. The steps are the run's (its step body, with train.grad_accum's batches and train.clip_grad_norm's
// clipping), built as a run's rank builds them (train/rank_step.h).
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "data/batch_loader.h"
#include "data/dataset.h"
#include "distributed/device_selection.h"
#include "model/model.h"
#include "optim/fused_adam.h"
#include "task/make_task.h"
#include "train/rank_step.h"
#include "train/training_data.h"
#include "train/training_host.h"
#include "train/training_model.h"
#include "util/cuda_memory.h"
#include "util/fast_paths.h"
#include "workbench/errors.h"
#include "workbench/system_info.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

BatchLoaderOptions benchmarkLoaderOptions(const Experiment& e, const Dataset& data, torch::Device device) {
  BatchLoaderOptions options;
  options.batch_size = e.train.batch_size;
  options.seed = e.seed;
  options.device = device;
  options.pin_memory = e.train.pinned_memory;
  options.channels_last = useChannelsLast(e.train, data.sample_shape);
  options.drop_last = true;  // a short last batch would skew per-step timings
  if (e.data.augment_enabled && data.sample_shape.size() == 3) options.augment = e.data.augment;
  options.prefetch = e.data.prefetch;
  return options;
}

// `warmup_steps` untimed, then `steps` timed: where the time of a step goes (loading, forward and backward,
// the optimizer), epoch after epoch of `loader`.
BenchResult timeSteps(const Experiment& e, RankStep& rank_step, BatchLoader& loader, int64_t steps,
                      int64_t warmup_steps, const std::function<void(const std::string&)>& log) {
  const torch::Device device = rank_step.device();
  TrainingStep& step = rank_step.body();
  GraphedStep* graphed = rank_step.graphed();  // train.cuda_graphs: the step replayed from a CUDA graph
  const int64_t accum = std::max<int64_t>(1, e.train.grad_accum);
  Clock::duration data_time{}, compute_time{}, optimizer_time{};
  int64_t epoch = 1;
  loader.startEpoch(epoch);
  Clock::time_point start;
  const int device_index = device.index() < 0 ? 0 : device.index();
  // The next batch (epoch after epoch), then `work` on it: the two times apart.
  const auto timedBatch = [&](const std::function<void(const Batch&)>& work) {
    const auto t0 = Clock::now();
    std::optional<Batch> batch = loader.next();
    if (!batch) {
      loader.startEpoch(++epoch);
      batch = loader.next();
    }
    const auto t1 = Clock::now();
    work(*batch);
    data_time += t1 - t0;
    compute_time += Clock::now() - t1;
  };
  for (int64_t i = 0; i < warmup_steps + steps; ++i) {
    if (device.is_cuda() && i == std::min<int64_t>(1, warmup_steps)) {
      torch::cuda::synchronize();
      resetCudaPeakMemory(device_index);
    }
    if (i == warmup_steps) {
      if (device.is_cuda()) torch::cuda::synchronize();
      start = Clock::now();
      data_time = compute_time = optimizer_time = {};
      step.takeReport();  // what the warm-up measured (a pipeline's idle share) is left out
    }
    if (graphed) {
      // The optimizer's step is in the graph: its time is counted as compute.
      timedBatch([&](const Batch& batch) { graphed->step(batch, i, e.optimizer.lr); });
      continue;
    }
    step.begin(i, e.optimizer.lr);
    for (int64_t m = 0; m < accum; ++m) {
      timedBatch([&](const Batch& batch) { step.forwardBackward(batch, accum, m + 1 == accum); });
    }
    const auto t2 = Clock::now();
    step.finish(i + 1);
    optimizer_time += Clock::now() - t2;
  }
  if (device.is_cuda()) torch::cuda::synchronize();
  const double total = seconds(Clock::now() - start);
  BenchResult result;
  if (device.is_cuda()) result.cuda_peak_bytes = cudaMemoryStats(device_index).peak_allocated_bytes;
  if (graphed && log) {
    if (std::optional<std::string> news = graphed->takeNews()) log(*news);
  }
  if (const std::string measured = step.takeReport(); log && !measured.empty()) log(measured);
  result.batch_size = e.train.batch_size;
  result.steps = steps;
  result.samples_per_sec = total > 0 ? static_cast<double>(steps * accum * e.train.batch_size) / total : 0;
  result.step_ms = 1000.0 * total / std::max<int64_t>(1, steps);
  result.data_ms = 1000.0 * seconds(data_time) / std::max<int64_t>(1, steps);
  result.compute_ms = 1000.0 * seconds(compute_time) / std::max<int64_t>(1, steps);
  result.optimizer_ms = 1000.0 * seconds(optimizer_time) / std::max<int64_t>(1, steps);
  return result;
}

}  // namespace

BenchResult benchmarkTraining(const Experiment& e, int64_t steps, int64_t warmup_steps,
                              const std::function<void(const std::string&)>& log) {
  const torch::Device device = resolveDevice(e.train.devices.at(0));
  const TrainingHost host = prepareTrainingHost(e.train, device);
  if (log) log(describe(querySystemInfo()) + "\n" + host.threads + "\n" + host.host_memory);
  if (host.cuda_switches && log) log(*host.cuda_switches);
  const TrainingData loaded = loadTrainingData(e, device, true);
  const Dataset& data = loaded.data;
  if (loaded.placement && log) log(loaded.placement->reason);
  RankStep step(e.train, ownedModel(buildTrainingModel(e, data, device)), makeTask(e), device);
  step.model().train(true);
  const BatchLoaderOptions options = benchmarkLoaderOptions(e, data, device);
  if (log) {
    // train.amp: autocast around forward and loss; fp16 adds torch's dynamic loss scaling.
    const std::string precision =
        step.ampDtype() ? wordString(e.train.amp) + " autocast" : std::string("float32");
    log(data.description + "\nModel: " + std::to_string(step.model().info().parameters) +
        " parameters; batch " + std::to_string(e.train.batch_size) + "; precision " + precision +
        (options.channels_last ? "; channels_last" : "") + "; optimizer " + wordString(e.optimizer.name) +
        (stepDescription(step.optimizer()).empty() ? "" : " (" + stepDescription(step.optimizer()) + ")"));
  }
  if (log && !step.graphChoice().reason.empty()) log(step.graphChoice().reason);
  if (const std::string body = step.body().describe(); log && !body.empty()) log(body);
  BatchLoader loader(data.train, options);
  if (loader.batchesPerEpoch() == 0) {
    throw UserError("The training split has " + std::to_string(data.train.size()) +
                        " samples, fewer than one batch of " + std::to_string(e.train.batch_size) + ".",
                    "Lower train.batch_size or raise data.limit.");
  }
  return timeSteps(e, step, loader, steps, warmup_steps, log);
}

}  // namespace wb
