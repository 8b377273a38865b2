#pragma once
// Finders: short trials that answer "which learning rate?" and "how large a batch?" before a run, on a fresh
// model built exactly as the run would build it (same seed, data, optimizer, device, AMP). Nothing is written
// to disk and no run is registered; the experiment is only read. Both run on the calling thread (front ends
// call them from a worker thread) and report through plain callbacks. Plain C++: no Torch type crosses this
// header.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

// How a finder talks to its host. Every callback is called on the finder's thread; all are optional.
struct FinderCallbacks {
  std::function<void(const std::string& line)> log;  // what was set up, for the user
  // Polled between steps and trials: true ends the finder early, with what it measured so far.
  std::function<bool()> cancelled;
};

// ---- Learning-rate range test (Leslie Smith, "Cyclical Learning Rates", 2017; as fastai and
// pytorch-lr-finder) --

struct LrFinderOptions {
  double start_lr = 1e-7;
  double end_lr = 10.0;
  int64_t steps = 100;  // optimizer steps; the learning rate grows exponentially from start to end over them
  double smoothing = 0.98;      // EMA factor of the smoothed loss (bias-corrected as in Adam)
  double diverge_factor = 4.0;  // stop once the smoothed loss exceeds this multiple of its best so far
};

struct LrFinderPoint {
  int64_t step = 0;  // 0-based
  double lr = 0;
  double loss = 0;      // this step's training loss (mean over the effective batch)
  double smoothed = 0;  // the bias-corrected EMA of `loss` up to this step
};

enum class LrFinderStop { Completed, Diverged, NonFinite, Cancelled };

// Which rule chose the suggestion.
enum class LrSuggestionRule {
  None,             // too few steps, or the loss never fell: no suggestion
  SteepestDescent,  // the steepest fall of the smoothed loss against log(lr), before its minimum
  MinimumOverTen,   // a tenth of the learning rate at the smoothed loss's minimum (too short a fall to
                    // measure)
};

struct LrSuggestion {
  double lr = 0;       // 0 when rule is None
  int64_t index = -1;  // the point the suggestion was read at (-1: none)
  LrSuggestionRule rule = LrSuggestionRule::None;
  double min_loss_lr = 0;   // the learning rate at the smoothed loss's minimum (0 when there are no points)
  std::string explanation;  // one sentence: which rule, and why that one
};

// Steepest descent when the smoothed loss falls over enough points before its minimum, else minimum / 10.
// Pure: the CLI, the window and the tests read a curve through it.
LrSuggestion suggestLearningRate(const std::vector<LrFinderPoint>& points);

struct LrFinderResult {
  std::vector<LrFinderPoint> points;
  LrSuggestion suggestion;
  int64_t steps_run = 0;
  LrFinderStop stop = LrFinderStop::Completed;
  std::string stop_reason;      // in words: "the smoothed loss passed 4x its best (0.41) at lr 2.3"
  int64_t effective_batch = 0;  // samples per optimizer step (batch x grad_accum x devices)
  std::string device;
  double seconds = 0;
};

// Called after every step with the new point and the number of steps planned.
using LrFinderProgress = std::function<void(const LrFinderPoint& point, int64_t planned_steps)>;

// Trains a fresh copy of the experiment's model for up to options.steps steps at exponentially growing
// learning rates, on the experiment's first device, with the run's effective batch (several devices or
// grad_accum are accumulated on that one device). Throws wb::UserError for bad options or an experiment that
// cannot train (naming the key), and whatever LibTorch throws (out of memory included).
LrFinderResult findLearningRate(const Experiment& experiment, const LrFinderOptions& options,
                                const FinderCallbacks& callbacks = {}, const LrFinderProgress& progress = {});

const char* toString(LrFinderStop stop);
const char* toString(LrSuggestionRule rule);

// ---- Batch-size finder
// -------------------------------------------------------------------------------------

struct BatchFinderOptions {
  // The memory a step may take: the process's peak resident memory on the CPU, torch's peak allocated memory
  // on a CUDA device. 0 = what the device has (CPU: this process's resident memory now plus the memory the
  // system reports available; CUDA: the device's free memory plus what torch holds). On the CPU nothing ever
  // fails for want of memory short of the system's OOM killer, so this limit is the test.
  int64_t max_memory_bytes = 0;
  int64_t start_batch = 1;  // the first size tried; sizes double from there until one does not fit
  int64_t max_batch = 0;    // 0 = the training split's size (a larger batch would be more than an epoch)
  double headroom =
      0.9;  // the suggestion is the largest power of two whose peak stays within this share of the limit
  int64_t timed_steps = 2;  // per trial, after one untimed step (which creates the optimizer's state)
  // For tests: called in every trial step after backward, with the trial's batch size, while the step's
  // tensors are alive. A hook that throws c10::OutOfMemoryError stands in for a real out-of-memory.
  std::function<void(int64_t batch_size)> inside_step;
};

enum class BatchTrialOutcome {
  Fits,         // ran, and its peak memory stayed within the limit
  OverLimit,    // ran, but its peak memory passed the limit
  OutOfMemory,  // an allocation failed (CUDA out of memory, or the host's allocator gave up)
  NotTried,     // extrapolated from the last trial to need more memory than the machine has free: not run
};

struct BatchTrial {
  int64_t batch_size = 0;
  BatchTrialOutcome outcome = BatchTrialOutcome::Fits;
  int64_t peak_bytes = 0;      // measured (estimated for NotTried; 0 when an out-of-memory left none)
  double samples_per_sec = 0;  // training throughput over the timed steps (0 unless it ran to the end)
  double step_ms = 0;
  std::string note;  // the out-of-memory message, or why it was not tried
};

struct BatchFinderResult {
  std::vector<BatchTrial> trials;  // in the order they ran
  int64_t largest = 0;             // the largest batch that fits (0 when not even a batch of 1 does)
  int64_t suggested = 0;           // the largest power of two that fits with headroom (0 when none)
  std::string suggestion_reason;
  int64_t limit_bytes = 0;
  std::string limit_source;  // "--max-memory", "available host memory", "free CUDA memory"
  std::string
      memory_measure;  // "peak resident memory of this process" / "peak CUDA memory allocated by torch"
  std::string device;
  std::string stop_reason;  // why the search ended
  bool cancelled = false;
  double seconds = 0;
};

using BatchFinderProgress = std::function<void(const BatchTrial& trial)>;

// Grows the batch by powers of two from options.start_batch until one does not fit (out of memory, or over
// the limit), then bisects between the last fit and the first failure (to within 1/16 of the fit). Each trial
// is a real training step (forward, backward, optimizer, AMP as configured, the run's batch loader) on the
// experiment's first device. Out-of-memory is caught, the trial's memory released (CUDA: the caching
// allocator's cache emptied) and the search goes on. Throws wb::UserError for bad options or an experiment
// that cannot train.
BatchFinderResult findBatchSize(const Experiment& experiment, const BatchFinderOptions& options,
                                const FinderCallbacks& callbacks = {},
                                const BatchFinderProgress& progress = {});

const char* toString(BatchTrialOutcome outcome);

// "4GiB", "512MiB", "1.5G", "2000000000" (bytes) → bytes; -1 when the text is not a size.
int64_t parseByteSize(const std::string& text);
// 1536 MiB → "1.5 GiB"
std::string formatBytes(int64_t bytes);

}  // namespace wb
