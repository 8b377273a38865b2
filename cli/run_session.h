#pragma once
// Watching a run from the terminal, shared by `train` and `resume`: progress out, Ctrl-C / SIGTERM in (the
// step in flight finishes and a checkpoint is written; a second signal quits at once), SIGUSR1 (a checkpoint
// now) and SIGUSR2 (stop after this epoch), the exit status and the --json summary at the end.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>

#include "workbench/training_run.h"

namespace wb::cli {

struct SessionOptions {
  bool json = false;
  bool quiet = false;
  int64_t epochs = 1;  // for the progress bar
  // Called once at the end with the final summary and the first error (the queue's trial records how it
  // ended).
  std::function<void(const RunSummary&, const std::optional<RunError>&)> on_end;
};

// Creates the run with `make` (given the event sink), starts it and watches it to the end. Returns the exit
// status: 0 done, 2 bad input, 1 failure, 128+signal when stopped by SIGINT/SIGTERM.
int runSession(const std::function<std::unique_ptr<TrainingRun>(TrainingRun::EventSink)>& make,
               const SessionOptions& options);

// Any engine job on a worker thread that ends with RunFinished (a training run, a compression pipeline).
struct SessionJob {
  std::function<void()> request_stop;
  std::function<void()> wait;
  std::function<void()> request_checkpoint;  // SIGUSR1; empty: the job has no checkpoints (signal ignored)
  std::function<void()> stop_after_epoch;    // SIGUSR2; empty: the job has no epochs (signal ignored)
};
// As above; `result_json` makes the --json object from the final summary (and the error, added after).
int watchSession(const std::function<SessionJob(TrainingRun::EventSink)>& start,
                 const SessionOptions& options,
                 const std::function<nlohmann::json(const RunSummary&)>& result_json);

// The launch (torchrun, Slurm) this process is part of, when it trains one rank of several: false (the error
// printed, naming the variable) when the launcher's variables are bad.
bool readProcessLaunch(std::optional<ProcessLaunch>& launch);

// Prints an error (and what to do about it) on stderr.
void printError(const std::string& message, const std::string& hint);

}  // namespace wb::cli
