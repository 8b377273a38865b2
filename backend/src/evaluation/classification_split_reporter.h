#pragma once
// Classification's detailed report: every test sample's predicted class and softmax probabilities
// (predictSplit), then the confusion matrix, precision, recall and F1 per class and the most confident
// mistakes with their images (evaluationReport).

#include "evaluation/split_reporter.h"

namespace wb {

class ClassificationSplitReporter final : public SplitReporter {
 public:
  EvaluationReport report(const ForwardFn& forward, const Dataset& data, int64_t batch_size,
                          const torch::Device& device, const EvaluationOptions& options) const override;
};

}  // namespace wb
