#pragma once
// How a dataset's rows are divided: a seeded hold-out (validation, a CSV's or image folder's test share) and
// the data.limit cut, with the checks that name the key when a share leaves nothing to train on.

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace wb {

// Rows [0, n) split by a seeded permutation: the last `held_out` go to the second set. Each set is sorted so
// it keeps the file's order (the batch loader does the shuffling).
std::pair<torch::Tensor, torch::Tensor> seededSplit(int64_t n, int64_t held_out, uint64_t seed);

// round(fraction * n), checked to leave at least one sample on the kept side.
int64_t heldOutCount(int64_t n, double fraction, const std::string& key);

// min(limit, n), or n for limit 0.
int64_t limitedCount(int64_t n, int64_t limit);

// An int64 tensor of row numbers (seededSplit's) as a vector.
std::vector<int64_t> rowsOf(const torch::Tensor& rows);

// The rows of `pool` (a file's or folder's samples that are not test samples) cut to `limit` by a seeded
// choice (limit_seed; 0 = all), then split into training and validation rows (the last val_fraction of a
// seeded permutation: val_seed), each in the pool's order.
struct TrainValRows {
  std::vector<int64_t> train, val;
};
TrainValRows limitThenHoldOut(std::vector<int64_t> pool, int64_t limit, double val_fraction,
                              uint64_t limit_seed, uint64_t val_seed);

}  // namespace wb
