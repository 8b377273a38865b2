#include "run_folder/checkpoint_shards.h"

#include <cstdio>
#include <filesystem>

namespace wb {
namespace {

namespace fs = std::filesystem;

constexpr const char* kShardSuffix = ".wbshard";

std::string ofCheckpoint(const std::string& checkpoint_path) {
  return " (a shard of " + fs::path(checkpoint_path).filename().string() + ")";
}

}  // namespace

std::string checkpointShardName(int64_t step, int rank, int world_size) {
  char name[96];
  std::snprintf(name, sizeof(name), "step-%012lld.shard-%d-of-%d%s", static_cast<long long>(step), rank,
                world_size, kShardSuffix);
  return name;
}

std::optional<int64_t> checkpointShardStep(const std::string& file_name) {
  long long step = 0;
  int rank = 0;
  int world = 0;
  int consumed = 0;
  if (std::sscanf(file_name.c_str(), "step-%12lld.shard-%d-of-%d%n", &step, &rank, &world, &consumed) != 3)
    return std::nullopt;
  if (file_name.substr(static_cast<size_t>(consumed)) != kShardSuffix) return std::nullopt;
  return static_cast<int64_t>(step);
}

nlohmann::json shardsToJson(const std::vector<CheckpointShard>& shards) {
  nlohmann::json out = nlohmann::json::array();
  for (const CheckpointShard& s : shards) {
    out.push_back({{"file", s.file},
                   {"rank", s.rank},
                   {"of", s.world_size},
                   {"bytes", s.check.bytes},
                   {"crc32", s.check.crc32},
                   {"parameters", s.parameters}});
  }
  return out;
}

std::vector<CheckpointShard> shardsOf(const nlohmann::json& meta, const std::string& checkpoint_path) {
  std::vector<CheckpointShard> shards;
  if (!meta.contains("shards")) return shards;
  try {
    for (const nlohmann::json& j : meta.at("shards")) {
      CheckpointShard s;
      s.file = j.at("file").get<std::string>();
      s.rank = j.at("rank").get<int>();
      s.world_size = j.at("of").get<int>();
      s.check.bytes = j.at("bytes").get<uint64_t>();
      s.check.crc32 = j.at("crc32").get<uint32_t>();
      s.parameters = j.at("parameters").get<std::vector<std::string>>();
      // A name with a folder in it would reach outside the checkpoints folder.
      if (fs::path(s.file).filename().string() != s.file || !checkpointShardStep(s.file))
        throw CorruptCheckpoint(checkpoint_path + " names a shard file that is not one: " + s.file);
      shards.push_back(std::move(s));
    }
  } catch (const nlohmann::json::exception& e) {
    throw CorruptCheckpoint(checkpoint_path + " has a damaged list of shard files (" + e.what() + ")");
  }
  return shards;
}

std::string shardPath(const std::string& checkpoint_path, const CheckpointShard& shard) {
  return (fs::path(checkpoint_path).parent_path() / shard.file).string();
}

CheckpointShard writeCheckpointShard(const std::string& folder, int64_t step, int rank, int world_size,
                                     std::vector<std::string> parameters, const std::string& payload) {
  std::error_code ec;
  fs::create_directories(folder, ec);  // a failure shows in the write's own error, naming the file
  CheckpointShard shard;
  shard.file = checkpointShardName(step, rank, world_size);
  shard.rank = rank;
  shard.world_size = world_size;
  shard.parameters = std::move(parameters);
  const nlohmann::json meta = {
      {"step", step}, {"rank", rank}, {"of", world_size}, {"parameters", shard.parameters}};
  shard.check = writeCheckpointFile(folder + "/" + shard.file, meta, payload);
  return shard;
}

void verifyCheckpointShards(const std::string& checkpoint_path, const nlohmann::json& meta) {
  for (const CheckpointShard& shard : shardsOf(meta, checkpoint_path)) {
    try {
      verifyCheckpointFile(shardPath(checkpoint_path, shard), shard.check);
    } catch (const CorruptCheckpoint& e) {
      throw CorruptCheckpoint(e.what() + ofCheckpoint(checkpoint_path));
    }
  }
}

CheckpointContents readCheckpointShard(const std::string& checkpoint_path, const CheckpointShard& shard) {
  try {
    return readCheckpointFile(shardPath(checkpoint_path, shard), &shard.check);
  } catch (const CorruptCheckpoint& e) {
    throw CorruptCheckpoint(e.what() + ofCheckpoint(checkpoint_path));
  }
}

}  // namespace wb
