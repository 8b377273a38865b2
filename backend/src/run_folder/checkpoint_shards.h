#pragma once
// The shard files of a sharded run's checkpoint (train.shard): each rank writes the optimizer state of its
// shard into "step-<N>.shard-<r>-of-<W>.wbshard" beside "step-<N>.wbckpt", in the checkpoint file format
// (checkpoint_file.h), and rank 0 writes the main file last, once every shard is on disk; its header names
// each shard file with its length, CRC-32 and the parameters whose state it holds ("shards"). The main file
// and its shards are one checkpoint: listed, verified, loaded and pruned together (checkpoint_store.h). A
// main file whose header names no shards (an unsharded run's, or an older build's) is a checkpoint alone.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "run_folder/checkpoint_file.h"

namespace wb {

struct CheckpointShard {
  std::string file;  // its name, in the main file's folder
  int rank = 0;
  int world_size = 1;
  CheckpointFileCheck check;
  std::vector<std::string> parameters;  // whose optimizer state it holds, by the model's parameter names
};

std::string checkpointShardName(int64_t step, int rank, int world_size);
// The step a shard file's name is of; nullopt when the name is not a shard file's.
std::optional<int64_t> checkpointShardStep(const std::string& file_name);

nlohmann::json shardsToJson(const std::vector<CheckpointShard>& shards);
// The shards a main file's header names (none when it names none); CorruptCheckpoint naming `checkpoint_path`
// when the list is damaged.
std::vector<CheckpointShard> shardsOf(const nlohmann::json& meta, const std::string& checkpoint_path);
// Where `shard` lies: beside its main file.
std::string shardPath(const std::string& checkpoint_path, const CheckpointShard& shard);

// Rank `rank`'s shard file of the checkpoint of `step`, written atomically into `folder` (created if needed);
// the record the main file's header will hold for it.
CheckpointShard writeCheckpointShard(const std::string& folder, int64_t step, int rank, int world_size,
                                     std::vector<std::string> parameters, const std::string& payload);
// Every shard the main file's header names is there, is the file named and its checksum holds (read in
// pieces); CorruptCheckpoint naming the shard's file and its checkpoint otherwise.
void verifyCheckpointShards(const std::string& checkpoint_path, const nlohmann::json& meta);
// One shard, checked as verifyCheckpointShards checks it.
CheckpointContents readCheckpointShard(const std::string& checkpoint_path, const CheckpointShard& shard);

}  // namespace wb
