#pragma once
// Which rank keeps which parameters' training state (train.shard): whole tensors, in their order, cut into
// one contiguous run per rank of about equal numbers of elements. A pure function of the sizes and the rank
// count, so every rank computes the same partition, and a run resumed on other ranks a new one.

#include <cstdint>
#include <vector>

namespace wb {

struct ShardPartition {
  std::vector<int> owner;            // per parameter: the rank whose shard holds it
  std::vector<int64_t> offset;       // per parameter: where it starts in its owner's shard
  std::vector<int64_t> shard_numel;  // per rank: elements in its shard
  int64_t padded_numel = 0;          // the largest shard: every rank's flat buffer is this long
  bool owns(int rank, size_t parameter) const { return owner[parameter] == rank; }
};

// Parameter i goes to the rank in whose equal share of all elements its middle element falls: contiguous,
// monotone, and no rank is more than one tensor's size off its share.
ShardPartition partitionByNumel(const std::vector<int64_t>& numels, int ranks);

}  // namespace wb
