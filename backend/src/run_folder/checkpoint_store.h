#pragma once
// A run's checkpoints/ folder: step-numbered checkpoint files, the newest K kept plus the one with the best
// validation metric, and loading that falls back past damaged files.

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
  // Writes the checkpoint for `step` (meta gains "step" if absent) and prunes. Returns its path.
  std::string save(int64_t step, nlohmann::json meta, const std::string& payload);
  // Checkpoint files, newest (highest step) first.
  std::vector<std::string> list() const;
  // The newest checkpoint whose checksum holds; `warn` hears of each damaged one skipped. nullopt when none.
  std::optional<LoadedCheckpoint> loadLatestGood(const std::function<void(const std::string&)>& warn) const;

 private:
  void prune();
  std::string m_run_dir;
  int64_t m_keep;
  bool m_minimize;
};

}  // namespace wb
