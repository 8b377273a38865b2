#pragma once
// What a training run reports. Plain values only: subscribers (the CLI, the window) include this header
// without Torch. Events travel in batches (EventBatch), never one callback per scalar.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "workbench/compression_words.h"
#include "workbench/gpu_figures.h"
#include "workbench/profile_report.h"
#include "workbench/task_words.h"
#include "workbench/word_set.h"

namespace wb {

// Aggregated over the steps since the previous StepMetrics (train.log_every_steps of them): losses are
// accumulated on the device and read back only here.
// One device's share of a data-parallel window (train.devices with several entries, or a torchrun job).
struct DeviceMetrics {
  int64_t rank = 0;
  std::string device;          // "cpu", "cuda:1"; under torchrun the host's name is prefixed ("node2/cuda:0")
  double samples_per_sec = 0;  // this rank's own samples over the window
  int64_t cpu_rss_bytes = 0;   // the process's resident memory (ranks in one process share it)
  int64_t cuda_allocated_bytes = -1;  // -1 on CPU
  int64_t cuda_reserved_bytes = -1;
  int64_t cuda_peak_bytes = -1;
  GpuFigures gpu;  // this rank's GPU from NVML over the window ("CPU run" on the CPU)
  // A pipeline (train.pipeline: one rank, its stages on several devices): the stages on this device, one
  // entry per device (CPU stages share "cpu": one entry); its memory is the device's, the rate the rank's.
  // Empty for a data-parallel rank's entry.
  std::vector<int64_t> stages;
};

struct StepMetrics {
  int64_t step = 0;           // optimizer steps done
  int64_t epoch = 0;          // 1-based epoch in progress
  double epoch_fraction = 0;  // 0..1 within the epoch
  int64_t total_steps = 0;    // planned optimizer steps for the whole run
  double loss = 0;            // mean training loss over the window
  double lr = 0;
  double samples_per_sec = 0;
  double data_ms = 0;       // mean per step: waiting for the next batch
  double compute_ms = 0;    // forward + backward
  double optimizer_ms = 0;  // clip + optimizer step + schedule
  double data_wait_fraction = 0;
  double grad_norm = -1;  // total norm before clipping when clipping is on; -1 when not measured
  // Mixed precision (train.amp fp16): the loss scale after this window, and how many optimizer steps were
  // skipped because a gradient was inf/NaN (cumulative, and within this window). loss_scale -1 when no
  // scaler.
  double loss_scale = -1;
  int64_t skipped_steps = 0;
  int64_t nonfinite_steps_in_window = 0;
  int64_t cpu_rss_bytes = 0;
  // CUDA memory on the training device; -1 on CPU
  int64_t cuda_allocated_bytes = -1;
  int64_t cuda_reserved_bytes = -1;
  int64_t cuda_peak_bytes = -1;
  GpuFigures gpu;        // the training device (rank 0's) from NVML over the window: utilization, power, ...
  double elapsed_s = 0;  // since the run started
  double eta_s = -1;
  // Data parallel: one entry per rank (empty with one device). loss and samples_per_sec above are then the
  // global ones (all ranks' samples); the memory fields above are rank 0's. A pipeline: one entry per device
  // its stages run on (DeviceMetrics::stages), the memory fields above the first stage's device's.
  std::vector<DeviceMetrics> devices;
  // Data parallel: share of the gradient allreduce time that ran while backward was still computing (0..1);
  // -1 with one device.
  double allreduce_hidden_fraction = -1;
  double allreduce_ms = -1;  // mean per step: from the first bucket's launch to the last one's completion
};

struct EpochMetrics {
  int64_t epoch = 0;
  int64_t step = 0;
  double train_loss = 0;
  double val_loss = -1;  // -1 when there was no validation this epoch
  // The task's figures (taskFigureSpecs: classification's "accuracy") over the epoch's training samples and
  // over the validation split; val_figures is empty when there was no validation this epoch.
  std::vector<TaskFigure> train_figures;
  std::vector<TaskFigure> val_figures;
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
  BadInput,           // the experiment or the data: the user can fix it
  ExperimentChanged,  // a resume refused: the run's experiment.json changed since its checkpoint (force it)
  OutOfMemory,        // host or device memory
  NonFinite,          // the loss became NaN or infinite
  Device,             // a missing or failing device
  Internal,           // anything else
};

struct RunError {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;  // what went wrong, naming the thing
  std::string hint;     // what to do about it
};

// How a run ended (summary.json's and the "finished" event's "status"). Interrupted: stopped by request or
// signal after a checkpoint; `workbench-cli resume` continues it. A word not in the table reads as Failed.
// The run index keeps a coarser status (RunIndexStatus, workbench/run_index.h: indexStatus maps one to it).
enum class RunStatus { Completed, EarlyStopped, Interrupted, Failed };
template <>
struct Words<RunStatus> {
  static constexpr std::array<Word<RunStatus>, 4> table{{{RunStatus::Completed, "completed"},
                                                         {RunStatus::EarlyStopped, "early_stopped"},
                                                         {RunStatus::Interrupted, "interrupted"},
                                                         {RunStatus::Failed, "failed"}}};
};
static_assert(isWholeWordTable<RunStatus>());

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

// A model artifact of a compression pipeline, measured the same way as the original it is compared with
// (workbench/compression.h; the run folder's compress.json holds the same figures).
struct ArtifactFigures {
  std::string name;              // "00-original", "01-prune", "02-finetune", ...
  std::string path;              // relative to the run folder ("compressed/01-prune")
  std::string source;            // the artifact this one was made from ("" for the original)
  std::optional<PassType> pass;  // the pass that made it; none for the original ("original" in the files)
  std::string description;       // what the pass did, in words
  double test_accuracy = -1;
  double test_loss = -1;
  int64_t parameters = 0;          // stored parameter values (int8 ones included)
  int64_t nonzero_parameters = 0;  // those not exactly zero
  int64_t size_bytes = 0;          // the artifact's weight file on disk
  int64_t flops_per_sample = 0;
  double latency_ms_batch1 = -1;  // median CPU forward time at batch 1, after warm-up, threads fixed
  double latency_ms_batch64 = -1;
  // The original's latency measured in the same session as this artifact's: speedups divide these, so an
  // artifact measured on a busier or quieter day is still compared fairly.
  double baseline_latency_ms_batch1 = -1;
  double baseline_latency_ms_batch64 = -1;
  std::string weights_dtype;              // "float32" or "int8"
  std::vector<std::string> float_layers;  // layers an int8 pass left in float (no int8 kernel), with why
};

// A compression pipeline moving from pass to pass.
struct CompressionStage {
  int64_t pass_index = 0;  // 1-based
  int64_t pass_count = 0;
  PassType pass = PassType::Prune;
  StageState state = StageState::Started;
  std::string artifact;  // the artifact the pass writes ("01-prune")
};

// A change a person made to a live run (the window's Run menu, `workbench-cli control`, a signal), taken at a
// step boundary that every rank agrees on. Written to metrics.jsonl and train.log; the charts mark it.
enum class ControlKind {
  LrScale,         // value: the factor on the schedule
  LrConstant,      // value: the learning rate that replaces the schedule
  StopAfterEpoch,  // value: the epoch the run ends after (with a checkpoint; status interrupted)
};

struct ControlApplied {
  int64_t step = 0;  // steps done when it takes effect: the next step is the first one it changes
  ControlKind kind = ControlKind::LrScale;
  double value = 0;
  double lr = -1;       // LR changes: the learning rate of that next step; -1 otherwise
  std::string source;   // who asked: "the window", "workbench-cli control", "SIGUSR2"
  std::string message;  // in words, as the log shows it: "step 1200: learning rate ×0.5 (now 0.0005), ..."
};

// A profile of a few steps (workbench/profile_report.h) is done: recorded and written to the run folder, or
// refused / failed with `error` saying why (a first step beyond the run's steps, a profile already in
// progress, the profiler failing). In metrics.jsonl the report's operator rows are left out (read them from
// report.report_path); the event as emitted carries them.
struct ProfileRecorded {
  ProfileReport report;
  std::string error;  // empty when the profile was recorded
};

using Event = std::variant<StepMetrics, EpochMetrics, LogLine, RunError, RunFinished, ArtifactFigures,
                           CompressionStage, ControlApplied, ProfileRecorded>;
using EventBatch = std::vector<Event>;

const char* toString(LogLevel level);
const char* toString(ErrorKind kind);
const char* toString(ControlKind kind);  // "lr_scale", "lr_constant", "stop_after_epoch"

}  // namespace wb
