#pragma once
// One rank's training loop: its device, its batches, forward/backward/step, metrics read back every
// train.log_every_steps, validation, early stopping. The run around it (folder, model file, summary, the
// event stream's subscriber) belongs to TrainingRun; with data parallelism there will be one of these per
// device and one run.

#include <torch/torch.h>

#include <stdexcept>

#include "data/dataset.h"
#include "model/model.h"
#include "optim/lr_schedule.h"
#include "train/event_stream.h"
#include "train/training_control.h"
#include "train/training_plan.h"

namespace wb {

// The loss became NaN or infinite: the weights are no longer usable.
class NonFiniteLossError : public std::runtime_error {
 public:
  NonFiniteLossError(const std::string& what, int64_t step) : std::runtime_error(what), m_step(step) {}
  int64_t step() const { return m_step; }

 private:
  int64_t m_step;
};

struct RankOutcome {
  RunStatus status = RunStatus::Completed;
  int64_t steps = 0;
  int64_t epochs = 0;  // epochs started
  double best_val_loss = -1;
  double best_val_accuracy = -1;
  double train_seconds = 0;  // pauses excluded
  int64_t samples = 0;       // training samples processed
};

struct RankSetup {
  const Experiment& experiment;
  const Dataset& data;
  Model& model;
  torch::optim::Optimizer& optimizer;
  LrSchedule& schedule;
  TrainingPlan plan;
  torch::Device device;
  EventStream& events;
  TrainingControl& control;
};

RankOutcome trainRank(const RankSetup& setup);

}  // namespace wb
