#pragma once
// How a dataset's rows are divided: a seeded hold-out (validation, a CSV's or image folder's test share) and
// the data.limit cut, with the checks that name the key when a share leaves nothing to train on.

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <utility>

namespace wb {

// Rows [0, n) split by a seeded permutation: the last `held_out` go to the second set. Each set is sorted so
// it keeps the file's order (the batch loader does the shuffling).
std::pair<torch::Tensor, torch::Tensor> seededSplit(int64_t n, int64_t held_out, uint64_t seed);

// round(fraction * n), checked to leave at least one sample on the kept side.
int64_t heldOutCount(int64_t n, double fraction, const std::string& key);

// min(limit, n), or n for limit 0.
int64_t limitedCount(int64_t n, int64_t limit);

}  // namespace wb
