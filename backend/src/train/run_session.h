#pragma once
// One training run on its thread (TrainingRun's worker), step by step: its folder (RunOpening: created,
// reopened for a resume, or followed from rank 0 under a launcher), the index and the control requests, the
// devices and the data, every local rank built from the same seed, the ranks trained, the model saved and
// tested, and the end written (summary.json, the index) whatever happened. Each step is a member function;
// what they share is the session's state below. Errors are caught at this thread's edge (run) and become the
// run's RunError.

#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "control/control_request_watcher.h"
#include "control/training_control.h"
#include "data/dataset.h"
#include "model/model.h"
#include "optim/grad_scaler.h"
#include "optim/lr_schedule.h"
#include "parallel/data_parallel.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/event_stream.h"
#include "run_folder/run_folder.h"
#include "train/checkpoint_writer.h"
#include "train/rank_launch.h"
#include "train/rank_trainer.h"
#include "train/run_index_entry.h"
#include "train/run_opening.h"
#include "train/starting_weights.h"
#include "train/training_plan.h"
#include "train/training_rank.h"
#include "workbench/experiment.h"
#include "workbench/process_launch.h"
#include "workbench/training_run.h"

namespace wb {

class RunSession {
 public:
  // `experiment` is the run's; a resume replaces it with the one in the run's folder.
  RunSession(Experiment& experiment, const std::optional<ResumeRequest>& resume,
             const std::optional<ProcessLaunch>& launch, TrainingControl& control, EventStream::Sink sink);
  ~RunSession();
  // The whole run; its summary (the end's events are posted, RunFinished excepted: the caller's).
  RunSummary run();
  EventStream& eventStream() { return events; }

 private:
  using Clock = std::chrono::steady_clock;
  void announceFolder();
  void setUpDevicesAndData();
  void buildRanks();
  void writeCheckpoint(const RankProgress& progress);
  void trainRanks();
  void saveModel();
  RunSummary finish();

  Experiment& experiment;
  const std::optional<ResumeRequest>& resume;
  const std::optional<ProcessLaunch>& launch;  // one rank of a job started by torchrun / Slurm
  TrainingControl& control;
  EventStream events;
  const Clock::time_point started = Clock::now();
  // Under a launcher, only rank 0's process owns the folder, the index and the checkpoints.
  const bool lead_process;

  RunSummary result;
  std::optional<RunError> error;
  // Where the run lives and the checkpoint it continues from.
  RunOpening opened{experiment, events, result};
  std::unique_ptr<ControlRequestWatcher> watcher;
  std::unique_ptr<RunIndexEntry> index;  // rank 0's process only
  std::string hash;                      // the experiment's
  c10::intrusive_ptr<c10d::Store> store;
  std::string failed_rank;  // "Rank 1 (cpu): " when a rank of several failed

  RankLayout layout;
  bool parallel = false;
  torch::Device device = torch::kCPU;
  Dataset data;
  int64_t shard = 0;  // training samples per rank
  TrainingPlan plan;
  std::unique_ptr<RankLaunch> ranks;
  std::optional<RankProgress> resume_point;
  std::unique_ptr<CheckpointStore> checkpoints;
  std::unique_ptr<CheckpointWriter> checkpoint_writer;  // rank 0's process only
  // model.weights, read once and loaded into every local rank's model when a run starts (not on resume).
  StartingWeights starting_weights{experiment.model};
};

}  // namespace wb
