#pragma once
// One rank's loop (trainRank) on the experiment's first device with the given step parts, built as
// TrainingRun builds it (seed, data, model, optimizer, schedule, the rank's step: train.amp's loss scaler and
// train.*'s parts after the given ones), without a run folder: for tests that look inside a step.

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "control/training_control.h"
#include "data/dataset.h"
#include "model/model.h"
#include "optim/lr_schedule.h"
#include "optim/optimizer_factory.h"
#include "run_folder/event_stream.h"
#include "step/step_parts.h"
#include "task/make_task.h"
#include "train/rank_step.h"
#include "train/rank_trainer.h"
#include "train/training_plan.h"

namespace wb::test {

struct RankRun {
  RankOutcome outcome;
  std::vector<StepMetrics> steps;
  std::vector<EpochMetrics> epochs;
  std::vector<std::pair<std::string, torch::Tensor>> parameters;  // the model's, after training
  double loss_scale = 0;
  int64_t skipped_steps = 0;
};

// `make_parts` is given the run before it trains (its `parameters` are the model's, already on the device).
// `task`: what the model learns; the experiment's (makeTask) when null.
template <typename MakeParts>
RankRun trainOneRank(const Experiment& e, MakeParts&& make_parts,
                     std::shared_ptr<const Task> task = nullptr) {
  RankRun run;
  const torch::Device device(e.train.devices.front());
  Dataset data = loadDataset(e.data, e.seed);
  const TrainingPlan plan = planTraining(e.train, data.train.x.size(0));
  torch::manual_seed(e.seed);
  auto model = buildModel(e.model, data.sample_shape, data.num_classes);
  model->to(device);
  run.parameters = model->namedParameters();
  auto optimizer = makeOptimizer(e.optimizer, model->namedParameters());
  LrSchedule schedule(e.schedule, e.optimizer.lr, plan.total_steps);
  std::mutex mutex;
  EventStream events([&](EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& ev : batch) {
      if (const auto* s = std::get_if<StepMetrics>(&ev)) run.steps.push_back(*s);
      if (const auto* m = std::get_if<EpochMetrics>(&ev)) run.epochs.push_back(*m);
    }
  });
  TrainingControl control;
  const StepParts parts = make_parts(run);
  Model& trained = *model;
  RankStep step(e.train, RankModel{trained, std::move(model), std::move(optimizer)},
                task ? task : makeTask(e), device, parts);
  run.outcome = trainRank(RankSetup{.experiment = e,
                                    .data = data,
                                    .step = step,
                                    .schedule = schedule,
                                    .plan = plan,
                                    .events = events,
                                    .control = control,
                                    .checkpoint = [](const RankProgress&) {}});
  events.flush();
  run.loss_scale = step.scaler().currentScale();
  run.skipped_steps = step.scaler().skippedSteps();
  return run;
}

}  // namespace wb::test
