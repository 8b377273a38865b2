#pragma once
// The pieces of estimateTrainingMemory (workbench/training_memory.h) that tests check on their own.

#include <cstdint>

#include "workbench/experiment.h"

namespace wb {

// Bytes of optimizer state per trainable fp32 parameter, as torch keeps it: SGD 0 (4 with momentum, its
// momentum_buffer), Adam/AdamW 8 (exp_avg, exp_avg_sq), RMSprop 4 (square_avg; 8 with momentum), Adagrad 4
// (sum). The per-parameter step counters are scalars and left out.
int64_t optimizerStateBytesPerParameter(const OptimizerConfig& optimizer);

// One rank's part of `total` elements split over `ranks` (ZeRO's ÷ N, rounded up: the largest shard).
int64_t shardShare(int64_t total, int64_t ranks);

}  // namespace wb
