#pragma once
// A sweep's early stopping of poor trials (ASHA, workbench/sweep.h's SweepEarlyStopping), decided while the
// trials train: each trial's validation metric at each rung epoch is recorded in the runs folder's index
// (runs.sqlite), where trials trained by other processes — a second queue worker, another device's — find it,
// and a trial trains on past a rung only when it is among the top 1/eta of the trials that have reached that
// rung so far (itself included; the first to arrive always goes on). Plain C++, no Torch.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workbench/experiment_words.h"
#include "workbench/sweep.h"

namespace wb {

// The rung epochs below `epochs` (a trial's last epoch is its end, not a rung): grace, grace·eta, grace·eta²,
// … rounded to whole epochs, each after the one before.
std::vector<int64_t> sweepRungEpochs(const SweepEarlyStopping& rule, int64_t epochs);

struct RungDecision {
  bool stop = false;
  int64_t place = 1;    // the trial's place among those at the rung, 1 = best (ties share the better place)
  int64_t reached = 1;  // trials that have reached the rung, this one included
  int64_t kept = 1;     // how many of them go on: max(1, ceil(reached / eta))
  std::string reason;   // what the trial's log says, stopped or not
};

// Records `value` (the validation metric `metric` of trial `trial`, its queue entry, at rung epoch `rung`;
// higher is better for accuracy, lower for loss) for sweep `sweep` and decides. Recording again (a resumed
// trial) replaces the value. Throws wb::UserError naming the index file when it cannot be read or written.
RungDecision judgeSweepRung(const std::string& runs_dir, const std::string& sweep, int64_t trial,
                            int64_t rung, ValidationMetric metric, double value, double eta);

// The sweep's early-stopping rule, kept in the index when the sweep is queued (the trials' processes read
// it).
void recordSweepRule(const std::string& runs_dir, const std::string& sweep, const SweepEarlyStopping& rule);
std::optional<SweepEarlyStopping> sweepRule(const std::string& runs_dir, const std::string& sweep);

struct RungResult {
  int64_t trial = 0;
  int64_t rung = 0;
  double value = 0;
};
// Every value recorded for the sweep, by rung then trial.
std::vector<RungResult> sweepRungResults(const std::string& runs_dir, const std::string& sweep);

}  // namespace wb
