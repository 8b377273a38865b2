#pragma once
// What a run learns: its task. A task says what a batch's targets (Batch::y) hold, which loss the step
// backpropagates, which figures a window, an epoch and a split report, and the sums those figures are made
// of. The step (step/training_step.h) and a pipeline's last stage take the loss from it, the metrics window
// and a rank's epoch totals (train/metrics_window.h) add up its sums, a checkpoint keeps them by the task's
// names, and evaluation (evaluation/evaluation.h) measures a split with it: none of them assumes a class
// label. Image and table-row classification (classification_task.h) is the only task today; a new kind of
// work (token sequences, masks) is a new Task beside it, chosen by makeTask (make_task.h).

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/task_words.h"

namespace wb {

class Task {
 public:
  virtual ~Task() = default;

  // The experiment's word for it ("task": "classification"); its name in logs and messages.
  virtual TaskKind kind() const = 0;
  std::string name() const { return wordString(kind()); }

  // The loss backward starts from: the mean over the batch of the loss of the model's `outputs` against
  // `targets`, under the step's autocast.
  virtual torch::Tensor loss(const torch::Tensor& outputs, const torch::Tensor& targets) const = 0;
  // The loss summed over the batch, float64 on the outputs' device (a split's mean is one division at the
  // end, whatever its batches).
  virtual torch::Tensor lossSum(const torch::Tensor& outputs, const torch::Tensor& targets) const = 0;

  // The names of the sums figureSums adds up, in its order. A checkpoint keeps an epoch's partial sums under
  // "epoch_<name>" (classification: "epoch_correct").
  virtual std::vector<std::string> sumNames() const = 0;
  // A batch's sums, float64 [sumNames().size()] on the outputs' device: device work only, so that a step
  // never waits for a metric (outputs are detached).
  virtual torch::Tensor figureSums(const torch::Tensor& outputs, const torch::Tensor& targets) const = 0;
  // The figures of sums added up over `samples` samples (a window, an epoch, a split), in the order and by
  // the names of taskFigureSpecs(kind()).
  virtual std::vector<TaskFigure> figures(const std::vector<double>& sums, int64_t samples) const = 0;
};

}  // namespace wb
