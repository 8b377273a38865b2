#pragma once
// The figures of one model artifact, measured the same way for the original and every compressed form:
// test accuracy and loss, parameters (and those not zero), size of its weight file on disk, FLOPs per sample,
// and CPU latency at batch 1 and 64 (median of N timed forward passes after warm-up, threads fixed), timed in
// rounds interleaved with the models it is compared with.

#include <string>
#include <vector>

#include "compress/model_artifact.h"
#include "data/dataset.h"
#include "task/task.h"
#include "workbench/events.h"

namespace wb {

struct MeasureOptions {
  int64_t latency_runs = 20;
  int64_t threads = 0;  // 0 = as configured for the run
};

// Everything but the latency: the test split scored with the run's `task`. `folder` holds the artifact's
// weights.pt (its size is the size on disk).
ArtifactFigures measureArtifact(const ModelArtifact& artifact, InferenceModel& model,
                                const std::string& folder, const Dataset& data, const Task& task);

struct Latency {
  double batch1_ms = -1;
  double batch64_ms = -1;
};

// Median milliseconds of `runs` forward passes of each model at batch 1 and 64 (after warm-up), on the first
// samples of `x`. The models are timed in interleaved rounds (each round runs every model once, in turn): on
// a shared or throttling machine a slow stretch then hits all of them alike, and the ratios between them hold
// where separate timings drift apart by 2x from one minute to the next.
std::vector<Latency> interleavedLatencies(const std::vector<InferenceModel*>& models, const torch::Tensor& x,
                                          const MeasureOptions& options);

}  // namespace wb
