#include "evaluation/classification_split_reporter.h"

#include "evaluation/split_predictions.h"

namespace wb {

EvaluationReport ClassificationSplitReporter::report(const ForwardFn& forward, const Dataset& data,
                                                     int64_t batch_size, const torch::Device& device,
                                                     const EvaluationOptions& options) const {
  EvaluationReport report =
      evaluationReport(predictSplit(forward, data.test, batch_size, device, options), data, options);
  report.task = TaskKind::Classification;
  report.samples = report.figures.samples;
  report.task_figures = {{"accuracy", report.figures.accuracy}};
  return report;
}

}  // namespace wb
