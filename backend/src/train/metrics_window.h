#pragma once
// The metrics of one rank's training: what the steps since the last report accumulated (the window) and the
// epoch in progress, kept as device tensors so that no step synchronizes the device, and the window's report
// as StepMetrics, gathered from every rank in one collective every train.log_every_steps.

#include <torch/torch.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "distributed/rank_group.h"
#include "optim/grad_scaler.h"
#include "optim/lr_schedule.h"
#include "pipeline/pipeline_stages.h"
#include "run_folder/event_stream.h"
#include "step/step_parts.h"
#include "system/gpu_sampler.h"
#include "system/utilization_advisor.h"
#include "task/task.h"

namespace wb {

using TrainClock = std::chrono::steady_clock;

inline double toSeconds(TrainClock::duration d) {
  return std::chrono::duration<double>(d).count();
}

struct MetricsWindow {
  torch::Tensor loss_sum;  // sum over samples of the per-sample loss
  torch::Tensor
      loss_samples;  // samples in loss_sum; with fp16 loss scaling, only those whose loss was finite
  int64_t samples = 0;
  int64_t steps = 0;
  // fp16: the scaler's count of steps skipped for inf/NaN gradients when the window began (the count lives
  // on the device; the window's own are the difference, read at the report).
  int64_t skipped_before = 0;
  TrainClock::time_point start;
  TrainClock::duration data{}, compute{}, optimizer{};

  void reset(const torch::Device& device, int64_t skipped_so_far);
};

// The epoch in progress so far.
struct EpochTotals {
  torch::Tensor loss_sum;
  torch::Tensor loss_samples;
  torch::Tensor figure_sums;  // float64 [k]: the task's sums (Task::sumNames; classification: correct)
  int64_t samples = 0;

  EpochTotals(const torch::Device& device, double loss_sum, double loss_samples,
              const std::vector<double>& figure_sums, int64_t samples);
  // figure_sums read back (synchronizes the device: at an epoch's end or a checkpoint only).
  std::vector<double> figureSums() const;
};

// A micro-batch's mean loss (detached) and the task's sums of its outputs against its targets, added to the
// window and the epoch. With fp16 loss scaling an overflowed (non-finite) loss, whose step the scaler skips,
// is left out of the averages rather than failing the run; a window whose every loss is non-finite still
// fails.
void countBatch(MetricsWindow& window, EpochTotals& epoch, const Task& task, const torch::Tensor& loss,
                const torch::Tensor& outputs, const torch::Tensor& targets, bool loss_scaling);

// A pipeline's devices as StepMetrics::devices, one entry each: its CUDA allocator's figures (read per
// device, no synchronization), or the process's RSS for the CPU its CPU stages share; the rank's throughput
// `rate` (every stage sees every sample), and `gpu` (the rank's NVML figures) on the entry of `rank`, the
// rank's own device.
std::vector<DeviceMetrics> stageDeviceMetrics(const std::vector<StageDevice>& stages,
                                              const torch::Device& rank, double rate, int64_t rss,
                                              const GpuFigures& gpu);

// What a report reads and where it goes.
struct WindowReporter {
  RankGroup& group;
  StepParts& parts;  // communication times and the gradient norm
  GradScaler& scaler;
  LrSchedule& schedule;
  int64_t total_steps;
  EventStream& events;
  torch::Device device;
  const std::vector<std::string>& rank_devices;  // by rank, for the per-device metrics
  int64_t first_step;                            // where this session started (resume), for the ETA
  GpuSampler* gpu_sampler = nullptr;             // the GPU's figures over each window (null: not sampled)
  UtilizationAdvisor* advisor = nullptr;         // logs the likely cause when the GPU is under half busy
  // A pipeline's devices (PipelineModel::stageDevices): each one's memory in StepMetrics::devices. Empty
  // without a pipeline.
  std::vector<StageDevice> stage_devices = {};

  // Posts the window as StepMetrics at `step` (the group's: every rank calls it at the same point), adds its
  // time to `train_time` and starts the next window. An empty window reports nothing. Throws
  // NonFiniteLossError when the loss became NaN or infinite.
  void report(MetricsWindow& window, int64_t step, int64_t epoch, double epoch_fraction,
              TrainClock::duration& train_time) const;
};

}  // namespace wb
