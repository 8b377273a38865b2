#pragma once
// The order in which each stage of a pipeline runs its micro-batches' forwards (F) and backwards (B). Every
// stage runs the backwards in the micro-batches' order, so gradients arrive in the order they are awaited.
//   gpipe: F0 F1 ... F(M-1) B0 B1 ... B(M-1) on every stage (GPipe: all activations held until the flush).
//   1f1b:  stage s of S first runs min(S-1-s, M) forwards, then alternates one forward and one backward, then
//          the remaining backwards (PipeDream-flush): a stage holds at most S-s micro-batches' activations.
// Both end with every micro-batch's gradient accumulated: the same step.

#include <cstdint>
#include <vector>

#include "workbench/experiment_words.h"

namespace wb {

struct StageOp {
  bool forward = true;
  int64_t micro = 0;
};

std::vector<StageOp> stageOps(PipelineSchedule schedule, size_t stage, size_t stages, int64_t micro_batches);

// The ideal bubble, (S-1)/(M+S-1): the share of a step each stage idles when every forward and backward of
// every stage takes the same time and hand-offs are free (GPipe's paper; 1F1B has the same bubble).
double idealBubble(size_t stages, int64_t micro_batches);

}  // namespace wb
