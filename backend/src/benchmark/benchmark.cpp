// benchmarkTraining (declared in workbench/training_run.h): steady-state training steps, timed, no run
// folder. The steps are the run's (its step body, with train.grad_accum's batches and train.clip_grad_norm's
// clipping).
#include <chrono>
#include <optional>

#include "data/batch_loader.h"
#include "data/dataset.h"
#include "distributed/device_selection.h"
#include "model/model.h"
#include "optim/autocast_guard.h"
#include "optim/fused_adam.h"
#include "optim/grad_scaler.h"
#include "optim/optimizer_factory.h"
#include "step/configured_parts.h"
#include "step/training_step.h"
#include "train/training_model.h"
#include "util/fast_paths.h"
#include "util/host_allocator.h"
#include "workbench/errors.h"
#include "workbench/system_info.h"
#include "workbench/training_run.h"

namespace wb {

BenchResult benchmarkTraining(const Experiment& e, int64_t steps, int64_t warmup_steps,
                              const std::function<void(const std::string&)>& log) {
  using Clock = std::chrono::steady_clock;
  auto secs = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  const std::string threads = configureThreads(e.train.threads, e.train.blas_threads);
  const std::string host_memory = keepFreedHostMemoryForReuse();
  if (log) log(describe(querySystemInfo()) + "\n" + threads + "\n" + host_memory);
  torch::manual_seed(e.seed);
  const torch::Device device = resolveDevice(e.train.devices.at(0));
  if (device.is_cuda() && log) log(applyCudaBackendSwitches(e.train));
  Dataset data = loadDataset(e.data, e.seed);
  const auto data_bytes = data.train.inMemory()
                              ? static_cast<int64_t>(data.train.x.nbytes() + data.train.y.nbytes())
                              : int64_t{0};
  const DataPlacement placement = chooseDataPlacement(e.train, device, data_bytes);
  if (placement.on_device && data.train.inMemory()) {
    data.train.x = data.train.x.to(device);
    data.train.y = data.train.y.to(device);
  }
  if (device.is_cuda() && log) log(placement.reason);
  TrainingModel built = buildTrainingModel(e, data, device);
  std::unique_ptr<Model>& model = built.model;
  std::unique_ptr<torch::optim::Optimizer>& optimizer = built.optimizer;
  model->train(true);
  const bool channels_last = useChannelsLast(e.train, data.sample_shape);
  // train.amp: autocast around forward and loss; fp16 adds torch's dynamic loss scaling.
  const std::optional<c10::ScalarType> amp_dtype = autocastDtype(e.train.amp);
  GradScalerOptions scaler_options;
  scaler_options.enabled = e.train.amp == "fp16";
  GradScaler scaler(scaler_options);
  StepParts parts;
  addConfiguredParts(parts, e.train, *model, *optimizer, scaler);
  TrainingStep step(*model, *optimizer, parts, device, amp_dtype);
  const int64_t accum = std::max<int64_t>(1, e.train.grad_accum);
  if (log) {
    const std::string precision = amp_dtype ? e.train.amp + " autocast" : std::string("float32");
    log(data.description + "\nModel: " + std::to_string(model->info().parameters) + " parameters; batch " +
        std::to_string(e.train.batch_size) + "; precision " + precision +
        (channels_last ? "; channels_last" : "") + "; optimizer " + e.optimizer.name +
        (takesFusedStep(*optimizer) ? " (fused CPU step)" : ""));
  }

  BatchLoaderOptions options;
  options.batch_size = e.train.batch_size;
  options.seed = e.seed;
  options.device = device;
  options.pin_memory = e.train.pinned_memory;
  options.channels_last = channels_last;
  options.drop_last = true;  // a short last batch would skew per-step timings
  if (e.data.augment_enabled && data.sample_shape.size() == 3) options.augment = e.data.augment;
  options.prefetch = e.data.prefetch;
  BatchLoader loader(data.train, options);
  if (loader.batchesPerEpoch() == 0) {
    throw UserError("The training split has " + std::to_string(data.train.size()) +
                        " samples, fewer than one batch of " + std::to_string(e.train.batch_size) + ".",
                    "Lower train.batch_size or raise data.limit.");
  }

  BenchResult result;
  result.batch_size = e.train.batch_size;
  Clock::duration data_time{}, compute_time{}, optimizer_time{};
  int64_t epoch = 1;
  loader.startEpoch(epoch);
  Clock::time_point start;
  for (int64_t i = 0; i < warmup_steps + steps; ++i) {
    if (i == warmup_steps) {
      if (device.is_cuda()) torch::cuda::synchronize();
      start = Clock::now();
      data_time = compute_time = optimizer_time = {};
    }
    step.begin(i, e.optimizer.lr);
    for (int64_t m = 0; m < accum; ++m) {
      const auto t0 = Clock::now();
      auto batch = loader.next();
      if (!batch) {
        loader.startEpoch(++epoch);
        batch = loader.next();
      }
      const auto t1 = Clock::now();
      step.forwardBackward(*batch, accum, m + 1 == accum);
      data_time += t1 - t0;
      compute_time += Clock::now() - t1;
    }
    const auto t2 = Clock::now();
    step.finish(i + 1);
    optimizer_time += Clock::now() - t2;
  }
  if (device.is_cuda()) torch::cuda::synchronize();
  const double total = secs(Clock::now() - start);
  result.steps = steps;
  result.samples_per_sec = total > 0 ? static_cast<double>(steps * accum * e.train.batch_size) / total : 0;
  result.step_ms = 1000.0 * total / std::max<int64_t>(1, steps);
  result.data_ms = 1000.0 * secs(data_time) / std::max<int64_t>(1, steps);
  result.compute_ms = 1000.0 * secs(compute_time) / std::max<int64_t>(1, steps);
  result.optimizer_ms = 1000.0 * secs(optimizer_time) / std::max<int64_t>(1, steps);
  return result;
}

}  // namespace wb
