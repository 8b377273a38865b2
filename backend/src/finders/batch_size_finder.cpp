// findBatchSize (declared in workbench/finders.h): the largest batch whose training step fits the device's
// memory, by trial. On CUDA an allocation that fails is the verdict, and torch's caching allocator says what
// each trial held at its peak. On the CPU nothing fails short of the kernel's OOM killer, so each trial is
// measured against a limit instead: the bytes LibTorch's CPU allocator held at the trial's peak (the step's
// batches, activations, gradients and optimizer state; HostAllocationMeter), over what the process held
// before the search. A trial that extrapolates past what the machine has free is not run at all.
#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>

#include "finders/probe_trainer.h"
#include "util/cuda_memory.h"
#include "util/host_allocation_meter.h"
#include "util/host_allocator.h"
#include "util/memory_probe.h"
#include "util/process_stats.h"
#include "workbench/errors.h"
#include "workbench/finders.h"

namespace wb {
namespace {

using Clock = std::chrono::steady_clock;

bool isPowerOfTwo(int64_t n) {
  return n > 0 && (n & (n - 1)) == 0;
}

// LibTorch's CPU allocator reports a failed allocation as a plain c10::Error in 1.13; CUDA's as
// OutOfMemoryError.
bool saysOutOfMemory(const std::string& text) {
  return text.find("out of memory") != std::string::npos ||
         text.find("not enough memory") != std::string::npos ||
         text.find("can't allocate memory") != std::string::npos;
}

std::string firstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

void checkOptions(const BatchFinderOptions& o) {
  if (o.max_memory_bytes < 0)
    throw UserError("The memory limit cannot be negative.", "Give e.g. 4GiB, or 0 for the device's.");
  if (o.start_batch < 1) {
    throw UserError("The first batch size must be at least 1 (got " + std::to_string(o.start_batch) + ").",
                    "Use 1.");
  }
  if (o.max_batch < 0)
    throw UserError("The largest batch size cannot be negative.", "Use 0 for the training split's size.");
  if (!(o.headroom > 0 && o.headroom <= 1)) {
    throw UserError("The headroom must be a share of the limit in (0, 1].",
                    "Use 0.9: the suggestion stays under 90 %.");
  }
  if (o.timed_steps < 1) throw UserError("Each trial needs at least 1 timed step.", "Use 2.");
}

class BatchSearch {
 public:
  BatchSearch(const Experiment& e, const BatchFinderOptions& o, const FinderCallbacks& c,
              const BatchFinderProgress& p)
      : m_experiment(e), m_options(o), m_callbacks(c), m_progress(p), m_trainer(e, c.log) {
    m_cuda = m_trainer.device().is_cuda();
    m_cuda_index = m_trainer.device().has_index() ? m_trainer.device().index() : 0;
  }

  BatchFinderResult run() {
    const auto started = Clock::now();
    BatchFinderResult& r = m_result;
    r.device = m_trainer.deviceName();
    r.memory_measure =
        m_cuda ? "peak CUDA memory allocated by torch"
               : "peak host memory allocated by torch, over the process's resident memory before the search";
    release();
    m_baseline = m_cuda ? cudaMemoryStats(m_cuda_index).allocated_bytes : currentRssBytes();
    // Counts from here on: what the trials allocate, and what they keep between them (gradients, optimizer
    // state).
    if (!m_cuda) m_host.emplace();
    if (m_options.max_memory_bytes > 0) {
      r.limit_bytes = m_options.max_memory_bytes;
      r.limit_source = "the given limit";
    } else if (m_cuda) {
      const CudaDeviceMemory device = cudaDeviceMemory(m_cuda_index);
      // Torch's own cache counts as free for a step: the allocator reuses it before it asks the driver.
      r.limit_bytes = device.valid ? device.free_bytes + cudaMemoryStats(m_cuda_index).reserved_bytes : 0;
      r.limit_source = device.valid ? "free CUDA memory" : "none (out-of-memory decides)";
    } else {
      r.limit_bytes = currentRssBytes() + availableHostMemoryBytes();
      r.limit_source = "available host memory";
    }

    const int64_t split = m_trainer.data().train.size();
    const int64_t upper = m_options.max_batch > 0 ? std::min(m_options.max_batch, split) : split;
    if (m_callbacks.log) {
      m_callbacks.log("Limit " + (r.limit_bytes > 0 ? formatBytes(r.limit_bytes) : std::string("none")) +
                      " (" + r.limit_source + "), measured as the " + r.memory_measure +
                      "; batch sizes up to " + std::to_string(upper) +
                      (upper == split ? " (the training split)" : ""));
    }
    int64_t fit = 0, fail = 0;
    int64_t b = std::min(m_options.start_batch, upper);
    // Double until a size does not fit (or the split's size is reached).
    while (!stopRequested()) {
      if (tryBatch(b)) {
        fit = b;
        if (b >= upper) {
          r.stop_reason = "every size up to the training split's " + std::to_string(upper) +
                          " samples fits (a larger batch would be more than an epoch)";
          break;
        }
        b = std::min(b * 2, upper);
      } else {
        fail = b;
        break;
      }
    }
    // The first size failed: halve until one fits.
    while (fit == 0 && fail > 1 && !stopRequested()) {
      b = fail / 2;
      if (tryBatch(b))
        fit = b;
      else
        fail = b;
    }
    // Bisect between the last fit and the first failure, to within a sixteenth of the fit.
    while (fit > 0 && fail > fit && fail - fit > std::max<int64_t>(1, fit / 16) && !stopRequested()) {
      b = fit + (fail - fit) / 2;
      if (tryBatch(b))
        fit = b;
      else
        fail = b;
    }
    r.largest = fit;
    if (r.cancelled) {
      r.stop_reason = "cancelled after " + std::to_string(r.trials.size()) + " trials";
    } else if (fit == 0) {
      r.stop_reason = "not even a batch of 1 fits";
    } else if (r.stop_reason.empty()) {
      r.stop_reason = "a batch of " + std::to_string(fit) + " fits and " + std::to_string(fail) + " does not";
    }
    suggest();
    release();
    r.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    return r;
  }

 private:
  bool stopRequested() {
    if (m_callbacks.cancelled && m_callbacks.cancelled()) m_result.cancelled = true;
    return m_result.cancelled;
  }

  // What one trial leaves behind goes back before the next is measured: the host allocator's free blocks
  // (which the run keeps for reuse) and the CUDA allocator's cache.
  void release() {
    releaseFreedHostMemory();
    if (m_cuda) releaseCachedCudaMemory();
  }

  bool tryBatch(int64_t batch) {
    BatchTrial t;
    t.batch_size = batch;
    const bool fits = measure(t);
    m_result.trials.push_back(t);
    if (m_progress) m_progress(t);
    if (m_callbacks.log) {
      std::ostringstream line;
      line << "batch " << batch << ": " << toString(t.outcome);
      if (t.peak_bytes > 0) line << ", " << formatBytes(t.peak_bytes);
      if (t.samples_per_sec > 0)
        line << ", " << static_cast<int64_t>(std::lround(t.samples_per_sec)) << " samples/s";
      if (!t.note.empty()) line << " (" << t.note << ")";
      m_callbacks.log(line.str());
    }
    if (fits) {
      m_last_fit_batch = batch;
      m_last_fit_peak = t.peak_bytes;
    }
    return fits;
  }

  // Runs the trial; false when it does not fit.
  bool measure(BatchTrial& t) {
    const int64_t batch = t.batch_size;
    if (!m_cuda && m_last_fit_batch > 0) {
      // The step's memory grows about linearly with the batch beyond what the process held before the first
      // trial.
      const double per_sample = std::max(
          0.0, static_cast<double>(m_last_fit_peak - m_baseline) / static_cast<double>(m_last_fit_batch));
      const auto estimate =
          static_cast<int64_t>(static_cast<double>(m_baseline) + per_sample * static_cast<double>(batch));
      const int64_t room = currentRssBytes() + availableHostMemoryBytes();
      if (room > 0 && estimate > room * 9 / 10) {
        t.outcome = BatchTrialOutcome::NotTried;
        t.peak_bytes = estimate;
        t.note = "would need about " + formatBytes(estimate) + "; this machine has " + formatBytes(room) +
                 " for this process";
        return false;
      }
    }
    release();
    if (m_cuda) {
      resetCudaPeakMemory(m_cuda_index);
    } else {
      m_host->resetPeak();
    }
    const double lr = m_experiment.optimizer.lr;
    try {
      EndlessBatches batches(m_trainer.data().train, m_trainer.loaderOptions(batch));
      // The first step creates the optimizer's state and warms the kernels: measured for memory, not timed.
      m_trainer.step(batches, 1, lr, m_options.inside_step).item<double>();
      // On CUDA the peak is the steady step's: the first step of a new batch shape also holds cuDNN's
      // benchmark try-outs (each algorithm's workspace, gone once one is picked), which made a batch that had
      // been benchmarked in an earlier search look smaller than the same batch seen first (H200). The
      // optimizer's state and the gradients the first step created stay allocated, so the peak still counts
      // them.
      if (m_cuda) resetCudaPeakMemory(m_cuda_index);
      const auto start = Clock::now();
      torch::Tensor loss;
      for (int64_t i = 0; i < m_options.timed_steps; ++i)
        loss = m_trainer.step(batches, 1, lr, m_options.inside_step);
      loss.item<double>();  // waits for the device
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      t.step_ms = 1000.0 * seconds / static_cast<double>(m_options.timed_steps);
      t.samples_per_sec = seconds > 0 ? static_cast<double>(batch * m_options.timed_steps) / seconds : 0;
    } catch (const c10::OutOfMemoryError& e) {
      outOfMemory(t, e.what_without_backtrace());
      return false;
    } catch (const c10::Error& e) {
      if (!saysOutOfMemory(e.what_without_backtrace())) throw;
      outOfMemory(t, e.what_without_backtrace());
      return false;
    } catch (const std::bad_alloc&) {
      outOfMemory(t, "the host's allocator gave up (std::bad_alloc)");
      return false;
    }
    t.peak_bytes = peakBytes();
    const bool within = m_result.limit_bytes <= 0 || t.peak_bytes <= m_result.limit_bytes;
    t.outcome = within ? BatchTrialOutcome::Fits : BatchTrialOutcome::OverLimit;
    if (!within) t.note = "over the limit of " + formatBytes(m_result.limit_bytes);
    return within;
  }

  int64_t peakBytes() const {
    return m_cuda ? cudaMemoryStats(m_cuda_index).peak_allocated_bytes : m_baseline + m_host->peakBytes();
  }

  void outOfMemory(BatchTrial& t, const std::string& message) {
    t.outcome = BatchTrialOutcome::OutOfMemory;
    t.note = firstLine(message);
    // The trial's tensors are gone with its scope; the gradients are left (the same size at every batch) and
    // the allocator's cache goes back before the next trial. The peak shows what the step reached before it
    // failed.
    t.peak_bytes = peakBytes();
    release();
  }

  void suggest() {
    BatchFinderResult& r = m_result;
    const double room = r.limit_bytes > 0 ? m_options.headroom * static_cast<double>(r.limit_bytes) : 0;
    for (const BatchTrial& t : r.trials) {
      if (t.outcome != BatchTrialOutcome::Fits || !isPowerOfTwo(t.batch_size)) continue;
      if (room > 0 && static_cast<double>(t.peak_bytes) > room) continue;
      if (t.batch_size > r.suggested) r.suggested = t.batch_size;
    }
    const int percent = static_cast<int>(std::lround(m_options.headroom * 100));
    if (r.suggested > 0) {
      r.suggestion_reason = "the largest power of two that fits" +
                            (room > 0 ? " within " + std::to_string(percent) + " % of the limit (" +
                                            formatBytes(static_cast<int64_t>(room)) + ")"
                                      : std::string());
    } else if (r.largest > 0) {
      r.suggestion_reason = "no power of two stays within " + std::to_string(percent) +
                            " % of the limit; the largest batch that fits at all is " +
                            std::to_string(r.largest);
    } else {
      r.suggestion_reason = "nothing fits: use a smaller model, AMP, or a device with more memory";
    }
  }

  const Experiment& m_experiment;
  const BatchFinderOptions& m_options;
  const FinderCallbacks& m_callbacks;
  const BatchFinderProgress& m_progress;
  ProbeTrainer m_trainer;
  bool m_cuda = false;
  int m_cuda_index = 0;
  int64_t m_baseline = 0;
  int64_t m_last_fit_batch = 0;
  int64_t m_last_fit_peak = 0;
  std::optional<HostAllocationMeter> m_host;  // CPU: installed on this thread for the search
  BatchFinderResult m_result;
};

}  // namespace

const char* toString(BatchTrialOutcome outcome) {
  switch (outcome) {
    case BatchTrialOutcome::Fits:
      return "fits";
    case BatchTrialOutcome::OverLimit:
      return "over the limit";
    case BatchTrialOutcome::OutOfMemory:
      return "out of memory";
    case BatchTrialOutcome::NotTried:
      return "not tried";
  }
  return "fits";
}

BatchFinderResult findBatchSize(const Experiment& experiment, const BatchFinderOptions& options,
                                const FinderCallbacks& callbacks, const BatchFinderProgress& progress) {
  checkOptions(options);
  const std::vector<ValidationIssue> issues = checkExperiment(experiment);
  if (!issues.empty()) {
    throw UserError("The experiment cannot train:\n" + formatIssues(issues), "Fix the keys named above.");
  }
  BatchSearch search(experiment, options, callbacks, progress);
  return search.run();
}

}  // namespace wb
