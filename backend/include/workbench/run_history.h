#pragma once
// A run folder read back for plotting and comparing: its experiment, its metrics and its summary.
// Plain C++ (no Torch): the window opens past runs with it, the CLI compares two with it.

#include <optional>
#include <string>
#include <vector>

#include "workbench/events.h"
#include "workbench/experiment.h"

namespace wb {

struct RunHistory {
  std::string run_dir;
  Experiment experiment;
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  std::vector<LogLine> logs;
  std::optional<RunSummary> summary;  // absent while running or after a crash
};

// Reads run_dir/experiment.json, metrics.jsonl (damaged or unknown lines skipped) and summary.json.
// Throws wb::UserError when the folder is not a run folder.
RunHistory loadRunHistory(const std::string& run_dir);

}  // namespace wb
