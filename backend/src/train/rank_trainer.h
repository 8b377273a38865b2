#pragma once
// One rank's training loop: its device, its batches, the step's body and parts, metrics read back every
// train.log_every_steps, validation, early stopping. The run around it (folder, model file, summary, the
// event stream's subscriber) belongs to TrainingRun; with data parallelism there is one of these per rank.

#include <torch/torch.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "control/training_control.h"
#include "data/dataset.h"
#include "distributed/rank_group.h"
#include "optim/lr_schedule.h"
#include "run_folder/checkpoint_shards.h"
#include "run_folder/event_stream.h"
#include "system/gpu_sampler.h"
#include "train/non_finite_loss_error.h"
#include "train/rank_step.h"
#include "train/training_plan.h"

namespace wb {

struct RankOutcome {
  RunStatus status = RunStatus::Completed;
  int64_t steps = 0;
  int64_t epochs = 0;  // epochs started
  double best_val_loss = -1;
  double best_val_accuracy = -1;
  double train_seconds = 0;  // pauses excluded
  int64_t samples = 0;       // training samples processed
};

// A consistent point between optimizer steps: everything the loop itself carries that a checkpoint needs
// (the model, optimizer, schedule and RNG states are the run's to capture). Data continues at batch
// `next_batch` of epoch `epoch` (batch 0 of the next epoch after an epoch's end).
struct RankProgress {
  int64_t step = 0;
  int64_t epoch = 1;
  int64_t next_batch = 0;
  double epoch_loss_sum = 0;  // the epoch in progress so far
  // The task's sums (Task::sumNames, in its order; classification: the samples predicted right), kept in the
  // file as "epoch_<name>" each.
  std::vector<std::pair<std::string, double>> epoch_figure_sums;
  int64_t epoch_samples = 0;
  double epoch_loss_samples = 0;  // samples in epoch_loss_sum (fp16 leaves out non-finite losses)
  double best_val_loss = -1;
  double best_val_accuracy = -1;
  nlohmann::json early_stopping = nlohmann::json::object();
  double train_seconds = 0;
  int64_t samples = 0;
  std::optional<double> val_metric;  // the validation just done (epoch end), for keeping the best checkpoint
  std::string reason;                // "epoch", "steps", "minutes", "requested", "stop"
  // A sharded run's (train.shard): the shard file each rank wrote for this checkpoint, for the main file's
  // header to name (TrainingRank fills it in; not part of the progress read back).
  std::vector<CheckpointShard> shards;

  // Resumed on another number of ranks, the epoch's batches are counted anew: a position beyond the new
  // shard's `batches_per_epoch` starts the next epoch.
  void restartEpochIfPast(int64_t batches_per_epoch);

  nlohmann::json toJson() const;
  // `task`: the run's, whose sums the file keeps by name (a file without them starts the sums at 0).
  static RankProgress fromJson(const nlohmann::json& j, const Task& task);
  // The sums' values in the task's order, or zeros when there are none (a fresh epoch).
  std::vector<double> figureSums(const Task& task) const;
};

// What trainRank trains with; filled by name (RankSetup{.experiment = ..., ...}).
struct RankSetup {
  const Experiment& experiment;
  const Dataset& data;
  // The rank's model, optimizer, loss scaler, step parts (data parallel's allreduce first, then a
  // compression pass's, then train.*'s) and step body, on the rank's device.
  RankStep& step;
  LrSchedule& schedule;
  TrainingPlan plan;
  EventStream& events;
  TrainingControl& control;
  const RankProgress* resume_from = nullptr;  // continue from here instead of step 0
  // Writes a checkpoint of this point; empty = no checkpoints (benchmarks).
  std::function<void(const RankProgress&)> checkpoint = {};
  // Data parallel: this rank and its collectives (null = one device). Every rank runs trainRank with the
  // same plan; they agree on stops, pauses and checkpoints at each step, and metrics are global. Only rank 0
  // is given a `checkpoint` that writes; the others must be given one that does nothing (progress is still
  // gathered from every rank at each checkpoint).
  RankGroup* group = nullptr;
  std::vector<std::string> rank_devices = {};  // each rank's device name, for the per-device metrics
  GpuSampler* gpu_sampler = nullptr;           // NVML figures of this process's GPUs (null: not sampled)
};

RankOutcome trainRank(const RankSetup& setup);

}  // namespace wb
