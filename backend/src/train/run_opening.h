#pragma once
// Where a run lives and what it continues from, settled before anything is loaded: a new folder, a resumed
// one (refused when it finished, when another process runs it, or when its experiment or number of ranks
// changed since its checkpoint, unless forced), or, for a rank under a launcher that is not rank 0, rank 0's
// folder and checkpoint read from the ranks' store. What it finds stays here for the session (run_session.h)
// to use.

#include <c10/util/intrusive_ptr.h>

#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "run_folder/checkpoint_store.h"
#include "run_folder/event_stream.h"
#include "run_folder/run_folder.h"
#include "workbench/experiment.h"
#include "workbench/process_launch.h"
#include "workbench/training_run.h"

namespace wb {

class RunOpening {
 public:
  // `experiment` is the run's (a resume replaces it with its folder's); `result`'s run_dir is set as soon as
  // the folder is known, so that a run failing after that still names it.
  RunOpening(Experiment& experiment, EventStream& events, RunSummary& result);

  // A new folder in output.runs_dir, after the experiment's name (or its model and data), with
  // experiment.json.
  void create();
  // The folder `resume` names, its experiment.json, logs cut back to its latest good checkpoint.
  void reopen(const ResumeRequest& resume, const std::optional<ProcessLaunch>& launch);
  // Rank 0 creates or reopens the folder and says which checkpoint continues; this rank follows it.
  void follow(const c10::intrusive_ptr<c10d::Store>& store, const ProcessLaunch& launch, bool resume);

  std::unique_ptr<RunFolder> folder;  // rank 0's process only
  // A resume refused before it takes the folder over (changed experiment, finished run) leaves it untouched.
  bool folder_owned = false;
  std::string runs_dir;    // rank 0's process only
  std::string run_dir;     // set by follow; the session sets it from `folder` otherwise
  double wall_before = 0;  // earlier sessions of a resumed run
  std::optional<LoadedCheckpoint> checkpoint;

 private:
  void refuseFinishedOrRunning();
  void refuseChangesSinceCheckpoint(const ResumeRequest& resume, const std::optional<ProcessLaunch>& launch);

  Experiment& m_experiment;
  EventStream& m_events;
  RunSummary& m_result;
};

}  // namespace wb
