#include "workbench/lr_preview.h"

#include <algorithm>
#include <cmath>

#include "data/dataset.h"
#include "optim/lr_schedule.h"
#include "train/training_plan.h"

namespace wb {

LrCurve learningRateCurve(const Experiment& experiment, int64_t train_samples, int64_t max_points) {
  LrCurve curve;
  // Data parallel: each rank's shard of the epoch (padded to equal length) sets the steps, as in the run.
  const int64_t ranks = std::max<int64_t>(1, static_cast<int64_t>(experiment.train.devices.size()));
  const TrainingPlan plan = planTraining(experiment.train, (train_samples + ranks - 1) / ranks);
  curve.steps_per_epoch = plan.steps_per_epoch;
  curve.total_steps = plan.total_steps;
  if (plan.total_steps <= 0) return curve;
  const LrSchedule schedule(experiment.schedule, experiment.optimizer.lr, plan.total_steps);
  const int64_t last = plan.total_steps - 1;
  const int64_t points = std::max<int64_t>(2, max_points);
  std::vector<int64_t> steps;
  steps.reserve(static_cast<size_t>(std::min(points, plan.total_steps)) + 2);
  for (int64_t i = 0; i < points; ++i) steps.push_back(last * i / (points - 1));
  const int64_t warmup = experiment.schedule.warmup_steps;
  if (warmup > 0 && warmup <= last) steps.push_back(warmup);
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  curve.steps = steps;
  curve.lr.reserve(steps.size());
  for (int64_t k : steps) curve.lr.push_back(schedule.lrAt(k));
  return curve;
}

LrCurve learningRateCurve(const Experiment& experiment) {
  // As loadDataset splits: data.limit first, then round(val_fraction * n) held out for validation.
  int64_t samples = probeDataShape(experiment.data).train_samples;
  if (experiment.data.limit > 0) samples = std::min(samples, experiment.data.limit);
  samples -= static_cast<int64_t>(std::llround(experiment.data.val_fraction * static_cast<double>(samples)));
  return learningRateCurve(experiment, std::max<int64_t>(samples, 0));
}

}  // namespace wb
