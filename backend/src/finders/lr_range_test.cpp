// findLearningRate and suggestLearningRate (declared in workbench/finders.h): the learning-rate range test.
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "finders/probe_trainer.h"
#include "workbench/errors.h"
#include "workbench/finders.h"

namespace wb {
namespace {

std::string shortNumber(double value) {
  std::ostringstream out;
  out.precision(3);
  out << value;
  return out.str();
}

void checkOptions(const LrFinderOptions& o) {
  if (!(o.start_lr > 0) || !std::isfinite(o.start_lr)) {
    throw UserError(
        "The start learning rate must be a positive number (got " + shortNumber(o.start_lr) + ").",
        "Use e.g. 1e-7.");
  }
  if (!(o.end_lr > o.start_lr) || !std::isfinite(o.end_lr)) {
    throw UserError("The end learning rate (" + shortNumber(o.end_lr) + ") must be larger than the start (" +
                        shortNumber(o.start_lr) + ").",
                    "Use e.g. a start of 1e-7 and an end of 10.");
  }
  if (o.steps < 2) {
    throw UserError("The range test needs at least 2 steps (got " + std::to_string(o.steps) + ").",
                    "Use e.g. 100 steps.");
  }
  if (!(o.smoothing >= 0 && o.smoothing < 1)) {
    throw UserError("The loss smoothing must lie in [0, 1) (got " + shortNumber(o.smoothing) + ").",
                    "Use 0.98.");
  }
  if (!(o.diverge_factor > 1)) {
    throw UserError(
        "The divergence factor must be larger than 1 (got " + shortNumber(o.diverge_factor) + ").",
        "Use 4 (fastai) or 5 (pytorch-lr-finder).");
  }
}

}  // namespace

const char* toString(LrFinderStop stop) {
  switch (stop) {
    case LrFinderStop::Completed:
      return "completed";
    case LrFinderStop::Diverged:
      return "diverged";
    case LrFinderStop::NonFinite:
      return "non-finite";
    case LrFinderStop::Cancelled:
      return "cancelled";
  }
  return "completed";
}

const char* toString(LrSuggestionRule rule) {
  switch (rule) {
    case LrSuggestionRule::None:
      return "none";
    case LrSuggestionRule::SteepestDescent:
      return "steepest";
    case LrSuggestionRule::MinimumOverTen:
      return "min/10";
  }
  return "none";
}

LrSuggestion suggestLearningRate(const std::vector<LrFinderPoint>& points) {
  LrSuggestion s;
  const int64_t n = static_cast<int64_t>(points.size());
  if (n == 0) {
    s.explanation = "No steps ran, so there is no curve to read.";
    return s;
  }
  int64_t lowest = 0;
  for (int64_t i = 1; i < n; ++i) {
    if (points[i].smoothed < points[lowest].smoothed) lowest = i;
  }
  s.min_loss_lr = points[lowest].lr;
  // The first points are the EMA settling (few samples behind it) and the model barely moving: as
  // pytorch-lr-finder skips its first 10 of 100, the fall is looked for after the first tenth of the curve.
  const int64_t skip = std::min<int64_t>(10, n / 10);
  if (lowest <= skip) {
    s.explanation = "The smoothed loss never fell below where it started: even the start learning rate (" +
                    shortNumber(points.front().lr) +
                    ") is too high, or the steps too few. Lower the start, or run more steps.";
    return s;
  }
  // d(smoothed loss) / d(log lr) by central differences (numpy.gradient's), read only up to the minimum:
  // beyond it the loss is already turning up, and a steep stretch there would be the divergence, not
  // learning.
  auto logLr = [&](int64_t i) { return std::log(points[i].lr); };
  auto slope = [&](int64_t i) {
    const int64_t a = std::max<int64_t>(0, i - 1), b = std::min<int64_t>(n - 1, i + 1);
    const double run = logLr(b) - logLr(a);
    return run > 0 ? (points[b].smoothed - points[a].smoothed) / run : 0.0;
  };
  // Fewer than 5 points between the skipped start and the minimum are noise as much as a slope: then the rule
  // of thumb (fastai's lr_min) takes over.
  if (lowest - skip >= 5) {
    int64_t steepest = skip;
    for (int64_t i = skip; i <= lowest; ++i) {
      if (slope(i) < slope(steepest)) steepest = i;
    }
    if (slope(steepest) < 0) {
      s.lr = points[steepest].lr;
      s.index = steepest;
      s.rule = LrSuggestionRule::SteepestDescent;
      s.explanation = "Steepest descent: the smoothed loss falls fastest (against log lr) at " +
                      shortNumber(s.lr) + "; its minimum is at " + shortNumber(s.min_loss_lr) +
                      ", a tenth of which is " + shortNumber(s.min_loss_lr / 10) + ".";
      return s;
    }
  }
  s.lr = s.min_loss_lr / 10;
  s.rule = LrSuggestionRule::MinimumOverTen;
  // The point closest to the suggested rate, for marking it on the curve.
  s.index = 0;
  for (int64_t i = 1; i <= lowest; ++i) {
    if (std::abs(logLr(i) - std::log(s.lr)) < std::abs(logLr(s.index) - std::log(s.lr))) s.index = i;
  }
  s.explanation = "A tenth of the minimum: the smoothed loss is lowest at " + shortNumber(s.min_loss_lr) +
                  ", too early in the sweep to read the slope before it.";
  return s;
}

LrFinderResult findLearningRate(const Experiment& experiment, const LrFinderOptions& options,
                                const FinderCallbacks& callbacks, const LrFinderProgress& progress) {
  checkOptions(options);
  const std::vector<ValidationIssue> issues = checkExperiment(experiment);
  if (!issues.empty()) {
    throw UserError("The experiment cannot train:\n" + formatIssues(issues), "Fix the keys named above.");
  }
  const auto started = std::chrono::steady_clock::now();
  ProbeTrainer trainer(experiment, callbacks.log);
  EndlessBatches batches(trainer.data().train, trainer.loaderOptions(experiment.train.batch_size));

  LrFinderResult result;
  result.device = trainer.deviceName();
  result.effective_batch = experiment.train.batch_size * trainer.microBatchesPerStep();
  const double ratio = options.end_lr / options.start_lr;
  double average = 0;
  double best = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < options.steps; ++i) {
    if (callbacks.cancelled && callbacks.cancelled()) {
      result.stop = LrFinderStop::Cancelled;
      result.stop_reason = "cancelled after " + std::to_string(i) + " steps";
      break;
    }
    const double lr =
        options.start_lr * std::pow(ratio, static_cast<double>(i) / static_cast<double>(options.steps - 1));
    // One read-back per step: the test is about this step's loss, and it is short.
    const double loss = trainer.step(batches, trainer.microBatchesPerStep(), lr).item<double>();
    result.steps_run = i + 1;
    if (!std::isfinite(loss)) {
      result.stop = LrFinderStop::NonFinite;
      result.stop_reason = "the loss became " + shortNumber(loss) + " at learning rate " + shortNumber(lr);
      break;
    }
    LrFinderPoint point;
    point.step = i;
    point.lr = lr;
    point.loss = loss;
    average = options.smoothing * average + (1 - options.smoothing) * loss;
    point.smoothed = average / (1 - std::pow(options.smoothing, static_cast<double>(i + 1)));
    best = std::min(best, point.smoothed);
    result.points.push_back(point);
    if (progress) progress(point, options.steps);
    if (point.smoothed > options.diverge_factor * best) {
      result.stop = LrFinderStop::Diverged;
      result.stop_reason = "the smoothed loss (" + shortNumber(point.smoothed) + ") passed " +
                           shortNumber(options.diverge_factor) + "x its best (" + shortNumber(best) +
                           ") at learning rate " + shortNumber(lr);
      break;
    }
  }
  if (result.stop == LrFinderStop::Completed) {
    result.stop_reason = "reached the end learning rate (" + shortNumber(options.end_lr) + ") after " +
                         std::to_string(result.steps_run) + " steps";
  }
  result.suggestion = suggestLearningRate(result.points);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace wb
