#include "distributed/shard_checks.h"

namespace wb {
namespace {

// The levels the trainer implements; a level it does not is refused here instead of training unsharded.
bool shardLevelTrains(ShardLevel level) {
  switch (level) {
    case ShardLevel::None:
      return true;
    case ShardLevel::Optimizer:
    case ShardLevel::Gradients:
    case ShardLevel::Parameters:
      return false;
  }
  return false;
}

}  // namespace

std::vector<ValidationIssue> checkShard(const Experiment& e) {
  std::vector<ValidationIssue> issues;
  if (!shardLevelTrains(e.train.shard)) {
    issues.push_back({"train.shard", "\"" + wordString(e.train.shard) +
                                         "\" is not available in this version yet; use \"none\""});
  }
  return issues;
}

}  // namespace wb
