#pragma once
// A run folder read back for plotting and comparing: its experiment, its metrics and its summary.
// Plain C++ (no Torch): the window opens past runs with it, the CLI compares two with it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workbench/events.h"
#include "workbench/experiment.h"

namespace wb {

struct RunHistory {
  std::string run_dir;
  Experiment experiment;
  // The keys of `experiment` at their default value (workbench/experiment_defaults.h): what a comparison
  // marks
  // "(default)". Sorted paths such as "optimizer.momentum"; lists are whole keys ("optimizer.betas").
  std::vector<std::string> defaulted_keys;
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  std::vector<LogLine> logs;
  std::vector<ControlApplied> controls;  // live changes (learning rate, stop after epoch), in step order
  std::optional<RunSummary> summary;     // absent while running or after a crash
  uint64_t metrics_bytes = 0;  // how much of metrics.jsonl was read (whole lines): where following it goes on
};

// Reads run_dir/experiment.json, metrics.jsonl (damaged or unknown lines skipped) and summary.json.
// Throws wb::UserError when the folder is not a run folder.
RunHistory loadRunHistory(const std::string& run_dir);

// What metrics.jsonl gained past `offset` (whole lines only: a line still being written waits for the next
// read), for following a run that another process trains; `ended` once the run's summary.json exists (read
// the tail once more after that: the last lines come before the summary).
struct RunHistoryTail {
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  std::vector<ControlApplied> controls;
  uint64_t metrics_bytes = 0;  // the offset to read from next time
  bool ended = false;
  // metrics.jsonl is shorter than `offset`: the run was resumed from a checkpoint, which cuts its log back to
  // it. Nothing was read: read the history again from the start.
  bool rewound = false;
};
RunHistoryTail readRunHistoryTail(const std::string& run_dir, uint64_t offset);

}  // namespace wb
