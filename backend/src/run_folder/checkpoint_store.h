#pragma once
// A run's checkpoints/ folder: step-numbered checkpoint files, the newest K kept plus the one with the best
// validation metric, and loading that falls back past damaged files. A sharded run's checkpoint is its main
// file and the shard files its header names (checkpoint_shards.h): good only when all of them are, pruned
// together; shard files no main file names (a kill between the shards' write and the main file's) are
// removed when the store prunes.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "run_folder/checkpoint_file.h"

namespace wb {

struct LoadedCheckpoint {
  std::string path;
  CheckpointContents contents;
};

class CheckpointStore {
 public:
  // keep: the newest this many are kept; `minimize` says whether a lower "val_metric" in a checkpoint's
  // header is better (val_loss) or a higher one (val_accuracy).
  CheckpointStore(std::string run_dir, int64_t keep, bool minimize);

  std::string folder() const;
  // The checkpoints folder of the run in `run_dir` (where each rank writes its shard files).
  static std::string folderOf(const std::string& run_dir);
  // Writes the checkpoint for `step` (meta gains "step" if absent) and prunes. Returns its path.
  std::string save(int64_t step, nlohmann::json meta, const std::string& payload);
  // Checkpoints (their main files), newest (highest step) first.
  std::vector<std::string> list() const;
  // The files of the checkpoint whose main file is `checkpoint`: it, then the shard files its header names.
  std::vector<std::string> filesOf(const std::string& checkpoint) const;
  // The newest checkpoint whose main file and shard files all pass their checks; `warn` hears of each one
  // skipped, naming the damaged file. nullopt when none.
  std::optional<LoadedCheckpoint> loadLatestGood(const std::function<void(const std::string&)>& warn) const;

 private:
  void prune();
  void removeOrphanShards(const std::vector<std::string>& checkpoints);
  std::string m_run_dir;
  int64_t m_keep;
  bool m_minimize;
};

}  // namespace wb
