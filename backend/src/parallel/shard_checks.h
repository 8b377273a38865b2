#pragma once
// train.shard checked before training: the shard levels this version trains, and what each one needs.

#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

// Whether this version trains at `level` (every level since ZeRO stage 3, "parameters", came): the memory
// figures list every level but propose only these.
bool shardLevelTrains(ShardLevel level);

// Issues at "train.shard" (none when the experiment can train so). One device is not a problem: sharding over
// one rank keeps the whole state, as `none` does, and the run's log says so (a launched process also lists
// one device, while its launcher makes it one rank of many).
std::vector<ValidationIssue> checkShard(const Experiment& e);

}  // namespace wb
