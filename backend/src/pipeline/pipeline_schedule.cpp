#include "pipeline/pipeline_schedule.h"

#include <algorithm>

namespace wb {

std::vector<StageOp> stageOps(PipelineSchedule schedule, size_t stage, size_t stages, int64_t micro_batches) {
  std::vector<StageOp> ops;
  const int64_t m = micro_batches;
  if (schedule == PipelineSchedule::GPipe) {
    for (int64_t k = 0; k < m; ++k) ops.push_back({true, k});
    for (int64_t k = 0; k < m; ++k) ops.push_back({false, k});
    return ops;
  }
  const int64_t warmup = std::min<int64_t>(static_cast<int64_t>(stages - 1 - stage), m);
  for (int64_t k = 0; k < warmup; ++k) ops.push_back({true, k});
  for (int64_t k = 0; k < m - warmup; ++k) {
    ops.push_back({true, warmup + k});
    ops.push_back({false, k});
  }
  for (int64_t k = m - warmup; k < m; ++k) ops.push_back({false, k});
  return ops;
}

double idealBubble(size_t stages, int64_t micro_batches) {
  const double s = static_cast<double>(stages);
  return (s - 1) / (static_cast<double>(micro_batches) + s - 1);
}

}  // namespace wb
