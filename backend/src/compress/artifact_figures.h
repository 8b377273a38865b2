#pragma once
// The figures of one model artifact, measured the same way for the original and every compressed form:
// test accuracy and loss, parameters (and those not zero), size of its weight file on disk, FLOPs per sample,
// and CPU latency at batch 1 and 64 (median of N timed forward passes after warm-up, threads fixed).

#include <string>

#include "compress/model_artifact.h"
#include "data/dataset.h"
#include "workbench/events.h"

namespace wb {

struct MeasureOptions {
  int64_t latency_runs = 20;
  int64_t threads = 0;  // 0 = as configured for the run
};

// `folder` holds the artifact's weights.pt (its size is the size on disk).
ArtifactFigures measureArtifact(const ModelArtifact& artifact, const std::string& folder, const Dataset& data,
                                const MeasureOptions& options);

// Median milliseconds of `runs` forward passes at `batch` (after warm-up) of the first samples of `x`.
double medianLatencyMs(InferenceModel& model, const torch::Tensor& x, int64_t batch, int64_t runs);

}  // namespace wb
