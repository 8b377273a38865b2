#pragma once
// A sweep in a runs folder: its trials queued there (workbench/run_queue.h) and read back with their results
// — the same for the CLI (`sweep start|show|list`) and the window's sweep view. Plain C++, no Torch.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workbench/run_index.h"
#include "workbench/run_queue.h"
#include "workbench/sweep.h"

namespace wb {

// The tag every trial's run carries ("sweep:optimizers"): the runs list filters a sweep's trials by it.
std::string sweepTag(const std::string& sweep);

// Queues the planned trials of `spec` (planSweep) in runs_dir, all or none, as queued from folder `cwd`
// (relative paths of the experiment resolve there); a trial with a `problem` is queued as failed with it. The
// rule of early stopping is kept first (a worker on the queue may claim a trial the moment it is added).
// Throws wb::UserError when a sweep of that name is already in the queue, or the index cannot be written.
std::vector<int64_t> queueSweep(const std::string& runs_dir, const std::string& cwd, const SweepSpec& spec,
                                const std::vector<SweepTrial>& trials);

// A trial as the tables show it: its queue entry's state, or Stopped when the sweep's rule ended it early.
enum class TrialStatus { Queued, Held, Running, Done, Stopped, Failed, Unknown };
template <>
struct Words<TrialStatus> {
  static constexpr std::array<Word<TrialStatus>, 7> table{{{TrialStatus::Queued, "queued"},
                                                           {TrialStatus::Held, "held"},
                                                           {TrialStatus::Running, "running"},
                                                           {TrialStatus::Done, "done"},
                                                           {TrialStatus::Stopped, "stopped"},
                                                           {TrialStatus::Failed, "failed"},
                                                           {TrialStatus::Unknown, "unknown"}}};
};
static_assert(isWholeWordTable<TrialStatus>());

// The trial status of a queue entry's state (Stopped is never one: it is read from how the entry ended).
TrialStatus trialStatus(QueueState state);

struct SweepTrialResult {
  QueueEntry entry;
  nlohmann::json values = nlohmann::json::object();  // the trial's overrides
  std::optional<RunRecord> run;  // its run as the index lists it, once started (while running too)
  double metric = -1;            // the sweep's metric; -1: not measured (yet)
  bool stopped = false;          // ended early by the sweep's rule (ASHA)
  // What the tables show.
  TrialStatus status() const { return stopped ? TrialStatus::Stopped : trialStatus(entry.state); }
};

struct SweepResults {
  std::string name;
  SweepMetric metric = SweepMetric::BestValAccuracy;
  bool maximize = true;
  std::vector<std::string> keys;         // the swept keys, in the order of the first trial's values
  std::vector<SweepTrialResult> trials;  // in queue order
  int best = -1;                         // index in trials of the best finished one; -1 none yet
  double compute_s = 0;                  // training time of the trials that ended, summed
  int64_t count(TrialStatus status) const;
  bool finished() const;  // nothing of it waits or runs
};

// The sweep's trials and results. Throws wb::UserError when runs_dir's queue has no sweep of that name.
SweepResults readSweepResults(const std::string& runs_dir, const std::string& name);

// The sweeps in runs_dir's queue, in the order first queued.
std::vector<std::string> listSweepNames(const std::string& runs_dir);

}  // namespace wb
