#pragma once
// Length bucketing for texts (data.text.bucket_by_length): an epoch's shuffled order regrouped so that a
// batch holds texts of similar length and dynamic padding pads little, as transformers' group_by_length and
// torchtext's BucketIterator do. The order is cut into pools of `pool_batches` batches, each pool sorted by
// length and cut into batches, and the batches shuffled: every sample still comes once an epoch, in an order
// drawn from the seed.

#include <cstdint>
#include <vector>

namespace wb {

std::vector<int64_t> lengthBucketedOrder(const std::vector<int64_t>& order,
                                         const std::vector<int64_t>& lengths, int64_t batch_size,
                                         uint64_t seed, int64_t pool_batches = 50);

// The share of a padded batch's positions that are padding, over the batches of `order` cut by
// `batch_size`: 1 - tokens / (batch rows x longest row), summed over the batches.
double paddingWasted(const std::vector<int64_t>& order, const std::vector<int64_t>& lengths,
                     int64_t batch_size);

}  // namespace wb
