#pragma once
// What a training run reports. Plain values only: subscribers (the CLI, the window) include this header
// without Torch. Events travel in batches (EventBatch), never one callback per scalar.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace wb {

// Aggregated over the steps since the previous StepMetrics (train.log_every_steps of them): losses are
// accumulated on the device and read back only here.
struct StepMetrics {
  int64_t step = 0;            // optimizer steps done
  int64_t epoch = 0;           // 1-based epoch in progress
  double epoch_fraction = 0;   // 0..1 within the epoch
  int64_t total_steps = 0;     // planned optimizer steps for the whole run
  double loss = 0;             // mean training loss over the window
  double lr = 0;
  double samples_per_sec = 0;
  double data_ms = 0;       // mean per step: waiting for the next batch
  double compute_ms = 0;    // forward + backward
  double optimizer_ms = 0;  // clip + optimizer step + schedule
  double data_wait_fraction = 0;
  double grad_norm = -1;  // total norm before clipping when clipping is on; -1 when not measured
  // Mixed precision (train.amp fp16): the loss scale after this window, and how many optimizer steps were
  // skipped because a gradient was inf/NaN (cumulative, and within this window). loss_scale -1 when no scaler.
  double loss_scale = -1;
  int64_t skipped_steps = 0;
  int64_t nonfinite_steps_in_window = 0;
  int64_t cpu_rss_bytes = 0;
  // CUDA memory on the training device; -1 on CPU
  int64_t cuda_allocated_bytes = -1;
  int64_t cuda_reserved_bytes = -1;
  int64_t cuda_peak_bytes = -1;
  double elapsed_s = 0;  // since the run started
  double eta_s = -1;
};

struct EpochMetrics {
  int64_t epoch = 0;
  int64_t step = 0;
  double train_loss = 0;
  double train_accuracy = 0;
  double val_loss = -1;  // -1 when there was no validation this epoch
  double val_accuracy = -1;
  double lr = 0;
  double epoch_s = 0;
  double samples_per_sec = 0;
};

enum class LogLevel { Debug, Info, Warning, Error };

struct LogLine {
  LogLevel level = LogLevel::Info;
  std::string text;
};

enum class ErrorKind {
  BadInput,      // the experiment or the data: the user can fix it
  ExperimentChanged,  // a resume refused: the run's experiment.json changed since its checkpoint (force it)
  OutOfMemory,   // host or device memory
  NonFinite,     // the loss became NaN or infinite
  Device,        // a missing or failing device
  Internal,      // anything else
};

struct RunError {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;  // what went wrong, naming the thing
  std::string hint;     // what to do about it
};

// Interrupted: stopped by request or signal after a checkpoint; `workbench-cli resume` continues it.
enum class RunStatus { Completed, EarlyStopped, Interrupted, Failed };

struct RunSummary {
  RunStatus status = RunStatus::Failed;
  std::string run_dir;
  int64_t steps = 0;
  int64_t epochs = 0;
  double test_loss = -1;
  double test_accuracy = -1;
  double best_val_loss = -1;
  double best_val_accuracy = -1;
  double samples_per_sec = 0;
  double wall_s = 0;
  int64_t parameters = 0;
  int64_t flops_per_sample = 0;
};

struct RunFinished {
  RunSummary summary;
};

using Event = std::variant<StepMetrics, EpochMetrics, LogLine, RunError, RunFinished>;
using EventBatch = std::vector<Event>;

const char* toString(RunStatus status);
const char* toString(LogLevel level);
const char* toString(ErrorKind kind);

}  // namespace wb
