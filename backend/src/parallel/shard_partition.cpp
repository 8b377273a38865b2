#include "parallel/shard_partition.h"

#include <algorithm>
#include <stdexcept>

namespace wb {

ShardPartition partitionByNumel(const std::vector<int64_t>& numels, int ranks) {
  if (ranks < 1) throw std::invalid_argument("partitionByNumel: ranks < 1");
  ShardPartition p;
  p.shard_numel.assign(static_cast<size_t>(ranks), 0);
  int64_t total = 0;
  for (int64_t n : numels) total += n;
  int64_t before = 0;
  for (int64_t n : numels) {
    // Integer arithmetic (2·middle·ranks / 2·total): the same answer on every machine.
    const int64_t twice_middle = 2 * before + n;
    int rank = total > 0 ? static_cast<int>((twice_middle * ranks) / (2 * total)) : 0;
    rank = std::clamp(rank, 0, ranks - 1);
    if (!p.owner.empty()) rank = std::max(rank, p.owner.back());  // contiguous even with empty tensors
    p.owner.push_back(rank);
    p.offset.push_back(p.shard_numel[static_cast<size_t>(rank)]);
    p.shard_numel[static_cast<size_t>(rank)] += n;
    before += n;
  }
  p.padded_numel = *std::max_element(p.shard_numel.begin(), p.shard_numel.end());
  return p;
}

}  // namespace wb
