#pragma once
// Classification's per-sample predictions on a split (not only summed as evaluateModel does), and the
// detailed evaluation report built from them: the confusion matrix, per-class figures, the worst mistakes
// (ClassificationSplitReporter, classification_split_reporter.h, puts the two together).

#include <torch/torch.h>

#include "data/dataset.h"
#include "evaluation/split_reporter.h"
#include "workbench/evaluation_report.h"

namespace wb {

struct SplitPredictions {
  torch::Tensor predicted;          // int64 [N] on the CPU: argmax of the logits (as evaluateModel counts)
  torch::Tensor confidence;         // float32 [N]: softmax probability of the predicted class
  torch::Tensor truth_probability;  // float32 [N]: softmax probability of the true class
  double loss = 0;                  // mean cross-entropy
};

// Runs `forward` (eval mode, no gradients: the caller sets the mode) over x in batches on `device`, reporting
// progress and honouring cancel from `options` between batches (throws EvaluationCancelled).
SplitPredictions predictSplit(const ForwardFn& forward, const DataSplit& split, int64_t batch_size,
                              const torch::Device& device, const EvaluationOptions& options);

// The report of those predictions on the dataset's test split: figures, class names, and the
// options.max_misclassified most confident mistakes with their images un-normalized back to 8-bit pixels.
EvaluationReport evaluationReport(const SplitPredictions& predictions, const Dataset& data,
                                  const EvaluationOptions& options);

}  // namespace wb
