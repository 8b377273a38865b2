#include "run_folder/checkpoint_store.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <set>

#include "run_folder/checkpoint_shards.h"
#include "util/atomic_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPrefix = "step-";
constexpr const char* kSuffix = ".wbckpt";

std::string fileName(int64_t step) {
  char name[64];
  std::snprintf(name, sizeof(name), "%s%012lld%s", kPrefix, static_cast<long long>(step), kSuffix);
  return name;
}

}  // namespace

CheckpointStore::CheckpointStore(std::string run_dir, int64_t keep, bool minimize)
    : m_run_dir(std::move(run_dir)), m_keep(std::max<int64_t>(1, keep)), m_minimize(minimize) {
  // A kill during a checkpoint's write leaves "step-N.wbckpt.tmp.<pid>": never a checkpoint (list() takes
  // only complete names), and removed here, at the start or resume of the run.
  removeStaleTempFiles(folder());
}

std::string CheckpointStore::folder() const {
  return folderOf(m_run_dir);
}

std::string CheckpointStore::folderOf(const std::string& run_dir) {
  return run_dir + "/checkpoints";
}

std::string CheckpointStore::save(int64_t step, nlohmann::json meta, const std::string& payload) {
  std::error_code ec;
  fs::create_directories(folder(), ec);
  if (ec) {
    throw UserError("Could not create " + folder() + ": " + ec.message(),
                    "Check that the run folder is writable and the disk is not full.");
  }
  meta["step"] = step;
  const std::string path = folder() + "/" + fileName(step);
  try {
    writeCheckpointFile(path, meta, payload);
  } catch (const std::exception& e) {
    // Nothing was renamed into place: the newest complete checkpoint is still the one to resume from.
    const std::vector<std::string> kept = list();
    const std::string latest =
        kept.empty() ? std::string("there is no earlier checkpoint")
                     : "the latest checkpoint is still " + fs::path(kept.front()).filename().string();
    std::string hint = "Check that the disk holding the run folder works and is not full";
    if (const auto* failed = dynamic_cast<const FileWriteError*>(&e)) {
      if (failed->errorNumber() == ENOSPC || failed->errorNumber() == EDQUOT) {
        hint = "Free some space on the disk holding the run folder";
      } else if (failed->errorNumber() == EFBIG) {
        hint = "Raise the file size limit (ulimit -f unlimited)";
      }
    }
    throw UserError("The checkpoint of step " + std::to_string(step) + " was not saved. " + e.what() +
                        " Run folder: " + m_run_dir + "; " + latest + ".",
                    hint + ", then resume the run: it continues from its latest checkpoint.");
  }
  prune();
  return path;
}

std::vector<std::string> CheckpointStore::list() const {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder(), ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) == 0 && name.size() > std::string(kSuffix).size() &&
        name.compare(name.size() - std::string(kSuffix).size(), std::string::npos, kSuffix) == 0) {
      files.push_back(entry.path().string());
    }
  }
  // Zero-padded step numbers: the names sort like the steps.
  std::sort(files.rbegin(), files.rend());
  return files;
}

std::vector<std::string> CheckpointStore::filesOf(const std::string& checkpoint) const {
  std::vector<std::string> files{checkpoint};
  for (const CheckpointShard& shard : shardsOf(readCheckpointMeta(checkpoint), checkpoint))
    files.push_back(shardPath(checkpoint, shard));
  return files;
}

void CheckpointStore::prune() {
  const std::vector<std::string> files = list();
  if (static_cast<int64_t>(files.size()) <= m_keep) {
    removeOrphanShards(files);
    return;
  }
  // The best validation metric among all, kept even when it is older than the newest K.
  std::string best;
  double best_value = 0;
  for (const std::string& file : files) {
    try {
      const nlohmann::json meta = readCheckpointMeta(file);
      if (!meta.contains("val_metric") || !meta["val_metric"].is_number()) continue;
      const double value = meta["val_metric"].get<double>();
      if (best.empty() || (m_minimize ? value < best_value : value > best_value)) {
        best = file;
        best_value = value;
      }
    } catch (const CorruptCheckpoint&) {
      // A damaged file is never the best; it ages out like the others.
    }
  }
  std::vector<std::string> kept;
  for (size_t i = 0; i < files.size(); ++i) {
    if (i < static_cast<size_t>(m_keep) || files[i] == best) {
      kept.push_back(files[i]);
      continue;
    }
    std::error_code ec;
    fs::remove(files[i], ec);
  }
  removeOrphanShards(kept);
}

// Every shard file that no kept main file names: those of pruned checkpoints, and those a kill left between
// the shards' write and the main file's. A main file whose header cannot be read keeps the shard files of its
// step (they age out with it). Rank 0 prunes inside its write, while the other ranks wait for it in their
// next collective: no shard file of a later checkpoint is being written now.
void CheckpointStore::removeOrphanShards(const std::vector<std::string>& checkpoints) {
  std::set<std::string> named;
  std::set<int64_t> unreadable_steps;
  for (const std::string& checkpoint : checkpoints) {
    try {
      for (const CheckpointShard& shard : shardsOf(readCheckpointMeta(checkpoint), checkpoint))
        named.insert(shard.file);
    } catch (const CorruptCheckpoint&) {
      long long step = 0;
      if (std::sscanf(fs::path(checkpoint).filename().string().c_str(), "step-%lld", &step) == 1)
        unreadable_steps.insert(step);
    }
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder(), ec)) {
    const std::string name = entry.path().filename().string();
    const auto step = checkpointShardStep(name);
    if (!step || named.count(name) || unreadable_steps.count(*step)) continue;
    std::error_code remove_ec;
    fs::remove(entry.path(), remove_ec);
  }
}

std::optional<LoadedCheckpoint> CheckpointStore::loadLatestGood(
    const std::function<void(const std::string&)>& warn) const {
  const std::vector<std::string> files = list();
  for (size_t i = 0; i < files.size(); ++i) {
    try {
      LoadedCheckpoint loaded{files[i], readCheckpointFile(files[i])};
      verifyCheckpointShards(files[i], loaded.contents.meta);
      return loaded;
    } catch (const CorruptCheckpoint& e) {
      if (warn) {
        warn(std::string("Checkpoint ") + e.what() + "; " +
             (i + 1 < files.size() ? "using the previous one, " + fs::path(files[i + 1]).filename().string()
                                   : std::string("no older checkpoint is left")) +
             ".");
      }
    }
  }
  return std::nullopt;
}

}  // namespace wb
