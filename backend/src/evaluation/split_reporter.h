#pragma once
// A task's detailed report of a model on the test split (workbench/evaluation_report.h): what it keeps of
// each sample and what it makes of them. evaluateRunDetailed (a run's model or one of its compressed
// artifacts) asks makeSplitReporter for the run's task's, so the report is chosen by the experiment's "task"
// as the loss and the figures are (task/make_task.h). Classification's (classification_split_reporter.*)
// keeps each sample's argmax and softmax probabilities (split_predictions.*) and reports the confusion
// matrix, the per-class figures and the most confident mistakes. A new task brings its reporter beside it and
// its part of the report; `workbench-cli eval` and the window's Evaluation view show that part (each switches
// on EvaluationReport::task, so the compiler names every place a new TaskKind must be shown).

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>

#include "data/dataset.h"
#include "workbench/evaluation_report.h"
#include "workbench/task_words.h"

namespace wb {

// The model (or an int8 artifact's inference model) on one batch: inputs in, outputs out.
using ForwardFn = std::function<torch::Tensor(const torch::Tensor& x)>;

class SplitReporter {
 public:
  virtual ~SplitReporter() = default;
  // Runs `forward` (in eval mode, set by the caller) without gradients over data.test in batches on `device`,
  // reporting progress and honouring cancel from `options` between batches (throws EvaluationCancelled).
  // Fills the report's task, loss and the task's part; run_dir, model, note and dataset are the caller's.
  virtual EvaluationReport report(const ForwardFn& forward, const Dataset& data, int64_t batch_size,
                                  const torch::Device& device, const EvaluationOptions& options) const = 0;
};

// The reporter of `task`.
std::unique_ptr<SplitReporter> makeSplitReporter(TaskKind task);

}  // namespace wb
