#include "train/metrics_window.h"

#include <cmath>
#include <sstream>

#include "train/gpu_columns.h"
#include "train/non_finite_loss_error.h"
#include "util/cuda_memory.h"
#include "util/process_stats.h"

namespace wb {
namespace {

// Columns of a rank's row in the window's report.
enum Column { LossSum, Counted, Samples, Seconds, Rss, CudaAllocated, CudaReserved, CudaPeak, Busy, Hidden };

// This rank's window as one row of float64s (see Column).
torch::Tensor rankRow(const MetricsWindow& window, bool loss_scaling, double window_s, int64_t rss,
                      const CudaMemoryStats& mem, const CommunicationTimes& comm, const GpuFigures& gpu) {
  const auto options = window.loss_sum.options();
  auto value = [&options](double v) { return torch::scalar_tensor(v, options); };
  const torch::Tensor row = torch::stack(
      {window.loss_sum, loss_scaling ? window.loss_samples : value(static_cast<double>(window.samples)),
       value(static_cast<double>(window.samples)), value(window_s), value(static_cast<double>(rss)),
       value(mem.valid ? static_cast<double>(mem.allocated_bytes) : -1.0),
       value(mem.valid ? static_cast<double>(mem.reserved_bytes) : -1.0),
       value(mem.valid ? static_cast<double>(mem.peak_allocated_bytes) : -1.0), value(comm.busy_ms),
       value(comm.hidden_ms)});
  return torch::cat({row, gpuColumns(gpu, options)});  // the GPU's columns from Hidden + 1 on
}

// Each rank's own row of the gathered `ranks`, as the per-device metrics.
std::vector<DeviceMetrics> deviceMetrics(const torch::Tensor& ranks,
                                         const std::vector<std::string>& rank_devices) {
  const auto r = ranks.accessor<double, 2>();
  std::vector<DeviceMetrics> devices;
  for (int64_t k = 0; k < ranks.size(0); ++k) {
    DeviceMetrics d;
    d.rank = k;
    d.device = k < static_cast<int64_t>(rank_devices.size()) ? rank_devices[k] : std::string();
    d.samples_per_sec = r[k][Seconds] > 0 ? r[k][Samples] / r[k][Seconds] : 0;
    d.cpu_rss_bytes = static_cast<int64_t>(r[k][Rss]);
    d.cuda_allocated_bytes = static_cast<int64_t>(r[k][CudaAllocated]);
    d.cuda_reserved_bytes = static_cast<int64_t>(r[k][CudaReserved]);
    d.cuda_peak_bytes = static_cast<int64_t>(r[k][CudaPeak]);
    d.gpu = gpuFiguresFromColumns(&r[k][Hidden + 1], k, d.device.find("cpu") != std::string::npos);
    devices.push_back(std::move(d));
  }
  return devices;
}

// A CUDA device's allocator figures into `into` (StepMetrics or DeviceMetrics); left at -1 without them.
template <typename Metrics>
void setCudaMemory(Metrics& into, const CudaMemoryStats& mem) {
  if (!mem.valid) return;
  into.cuda_allocated_bytes = mem.allocated_bytes;
  into.cuda_reserved_bytes = mem.reserved_bytes;
  into.cuda_peak_bytes = mem.peak_allocated_bytes;
}

// The window's mean gradient norm (of its finite norms) and the loss scaler's figures.
void setGradientFigures(StepMetrics& m, const GradNormWindow& norms, const GradScaler& scaler,
                        int64_t skipped_before) {
  if (norms.mean) m.grad_norm = *norms.mean;
  if (scaler.enabled()) {
    m.loss_scale = scaler.currentScale();
    m.skipped_steps = scaler.skippedSteps();
    m.nonfinite_steps_in_window = m.skipped_steps - skipped_before;
  }
}

}  // namespace

std::vector<DeviceMetrics> stageDeviceMetrics(const std::vector<StageDevice>& stages,
                                              const torch::Device& rank, double rate, int64_t rss,
                                              const GpuFigures& gpu) {
  const torch::Device own = rank.is_cuda() && !rank.has_index() ? torch::Device(torch::kCUDA, 0) : rank;
  std::vector<DeviceMetrics> devices;
  for (const StageDevice& stage : stages) {
    DeviceMetrics d;
    d.device = stage.device.str();
    d.stages = stage.stages;
    d.samples_per_sec = rate;
    d.cpu_rss_bytes = rss;
    // A CUDA device this machine lacks (a run checks its stages' devices before training; a test may not)
    // has no figures, rather than failing the report.
    const bool seen = stage.device.is_cuda() && static_cast<int64_t>(stage.device.index()) <
                                                    static_cast<int64_t>(torch::cuda::device_count());
    if (seen) setCudaMemory(d, cudaMemoryStats(stage.device.index()));
    if (stage.device == own) d.gpu = gpu;
    devices.push_back(std::move(d));
  }
  return devices;
}

void MetricsWindow::reset(const torch::Device& device, int64_t skipped_so_far) {
  auto options = torch::TensorOptions().dtype(torch::kFloat64).device(device);
  loss_sum = torch::zeros({}, options);
  loss_samples = torch::zeros({}, options);
  samples = 0;
  steps = 0;
  skipped_before = skipped_so_far;
  start = TrainClock::now();
  data = compute = optimizer = TrainClock::duration{};
}

EpochTotals::EpochTotals(const torch::Device& device, double loss_sum_, double loss_samples_,
                         const std::vector<double>& figure_sums_, int64_t samples_)
    : samples(samples_) {
  auto options = torch::TensorOptions().dtype(torch::kFloat64).device(device);
  loss_sum = torch::scalar_tensor(loss_sum_, options);
  loss_samples = torch::scalar_tensor(loss_samples_, options);
  figure_sums = torch::tensor(figure_sums_, torch::TensorOptions().dtype(torch::kFloat64)).to(device);
}

std::vector<double> EpochTotals::figureSums() const {
  const torch::Tensor sums = figure_sums.to(torch::kCPU).contiguous();
  return {sums.data_ptr<double>(), sums.data_ptr<double>() + sums.numel()};
}

void countBatch(MetricsWindow& window, EpochTotals& epoch, const Task& task, const torch::Tensor& loss,
                const torch::Tensor& outputs, const torch::Tensor& targets, bool loss_scaling) {
  const int64_t n = targets.size(0);
  torch::NoGradGuard no_grad;
  auto weighted = loss.to(torch::kFloat64) * static_cast<double>(n);
  if (loss_scaling) {
    auto finite = torch::isfinite(weighted);
    weighted = torch::where(finite, weighted, torch::zeros_like(weighted));
    auto counted = finite.to(torch::kFloat64) * static_cast<double>(n);
    window.loss_samples += counted;
    epoch.loss_samples += counted;
  }
  window.loss_sum += weighted;
  epoch.loss_sum += weighted;
  epoch.figure_sums += task.figureSums(outputs, targets);
  window.samples += n;
  epoch.samples += n;
}

void WindowReporter::report(MetricsWindow& window, int64_t step, int64_t epoch, double epoch_fraction,
                            TrainClock::duration& train_time) const {
  if (window.steps == 0) return;
  const double window_s = toSeconds(TrainClock::now() - window.start);
  const CommunicationTimes comm = parts.takeCommunicationTimes();
  CudaMemoryStats mem;
  if (device.is_cuda()) mem = cudaMemoryStats(device.index() < 0 ? 0 : device.index());
  // One row per rank, gathered in one collective (one device: read back here).
  const int64_t rss = currentRssBytes();
  const GpuFigures gpu = windowGpuFigures(gpu_sampler, device);
  const torch::Tensor ranks =
      group.allgather(rankRow(window, scaler.enabled(), window_s, rss, mem, comm, gpu)).contiguous();
  const auto r = ranks.accessor<double, 2>();
  double loss_sum = 0, counted = 0, global_rate = 0, busy = 0, hidden = 0;
  for (int64_t k = 0; k < ranks.size(0); ++k) {
    loss_sum += r[k][LossSum];
    counted += r[k][Counted];
    global_rate += r[k][Seconds] > 0 ? r[k][Samples] / r[k][Seconds] : 0;
    busy += r[k][Busy];
    hidden += r[k][Hidden];
  }
  const double loss = loss_sum / counted;
  if (!std::isfinite(loss)) {
    std::ostringstream msg;
    msg << "The training loss became " << loss << " between steps " << (step - window.steps + 1) << " and "
        << step << " (epoch " << epoch << ", learning rate " << schedule.lrAt(step - 1) << ").";
    throw NonFiniteLossError(msg.str(), step);
  }
  StepMetrics m;
  m.step = step;
  m.epoch = epoch;
  m.epoch_fraction = epoch_fraction;
  m.total_steps = total_steps;
  m.loss = loss;
  m.lr = schedule.lrAt(step - 1);
  m.samples_per_sec = global_rate;
  const double per_step = 1000.0 / window.steps;
  m.data_ms = toSeconds(window.data) * per_step;
  m.compute_ms = toSeconds(window.compute) * per_step;
  m.optimizer_ms = toSeconds(window.optimizer) * per_step;
  m.data_wait_fraction = window_s > 0 ? toSeconds(window.data) / window_s : 0;
  const GradNormWindow norms = parts.takeGradNorm();
  setGradientFigures(m, norms, scaler, window.skipped_before);
  m.cpu_rss_bytes = rss;
  setCudaMemory(m, mem);
  m.gpu = gpu;
  if (group.size() > 1) {
    m.devices = deviceMetrics(ranks, rank_devices);
    // Gloo's from c10d's completion callbacks (the host time the sum was done); NCCL's on the GPU, from the
    // CUDA events around each collective (distributed/device_collective_clock.h: a step counts once its
    // events are done, so a window holds its steps but the last one's).
    if (busy > 0) {
      m.allreduce_hidden_fraction = hidden / busy;
      m.allreduce_ms = busy / ranks.size(0) / window.steps;
    }
  } else if (!stage_devices.empty()) {
    m.devices = stageDeviceMetrics(stage_devices, device, global_rate, rss, gpu);
  }
  m.elapsed_s = toSeconds(train_time + (TrainClock::now() - window.start));
  const int64_t steps_this_session = step - first_step;
  m.eta_s = steps_this_session > 0 && total_steps > step
                ? toSeconds(TrainClock::now() - window.start) / window.steps *
                      static_cast<double>(total_steps - step)
                : (step >= total_steps ? 0 : -1);
  events.post(m);
  // With fp16 loss scaling the scaler's skipped steps are these; without it nothing skipped them.
  if (norms.nonfinite > 0 && !scaler.enabled()) {
    events.log(LogLevel::Warning,
               std::to_string(norms.nonfinite) + " step(s) up to step " + std::to_string(step) +
                   " had an inf/NaN gradient norm (left out of grad_norm); without fp16 loss "
                   "scaling they were not skipped");
  }
  if (advisor) {
    if (std::string advice = advisor->advise(m); !advice.empty()) {
      events.log(LogLevel::Warning, std::move(advice));
    }
  }
  train_time += TrainClock::now() - window.start;
  window.reset(device, scaler.enabled() ? m.skipped_steps : 0);
}

}  // namespace wb
