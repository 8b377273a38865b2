#include "train/run_index_entry.h"

#include <filesystem>
#include <optional>

#include "train/rank_trainer.h"
#include "workbench/run_info.h"

namespace wb {

std::string absoluteFolder(const std::string& path) {
  std::filesystem::path p = std::filesystem::absolute(path).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.string();
}

RunIndexEntry::RunIndexEntry(const std::string& runs_dir, const std::string& folder,
                             const Experiment& experiment, const std::string& experiment_hash, bool resumed,
                             const std::vector<std::string>& tags)
    : m_index(std::make_unique<RunIndexDb>(runs_dir)) {
  const std::string absolute_folder = absoluteFolder(folder);
  // run.json holds the display name, tags and notes the user gave (kept on resume); a new run of an unnamed
  // experiment is numbered in its runs folder: "cnn-fashion-mnist-0007".
  std::optional<RunInfo> info = resumed ? readRunInfo(folder) : std::nullopt;
  const std::string name = info && !info->name.empty() ? info->name : experimentRunName(experiment);
  m_id = resumed ? m_index->reopenRun(name, experiment_hash, absolute_folder)
                 : m_index->registerRun(name, experiment_hash, absolute_folder);
  if (!info) info = RunInfo{numberedRunName(experiment, m_id), tags, {}};
  if (info->name.empty()) info->name = numberedRunName(experiment, m_id);
  writeRunInfo(folder, *info);
  m_index->describeRun(m_id, experiment);
  m_index->setInfo(m_id, *info);
}

void RunIndexEntry::progress(const RankProgress& progress, EventStream& events) {
  try {
    m_index->updateProgress(m_id, progress.step, progress.epoch - (progress.next_batch == 0 ? 1 : 0),
                            progress.best_val_loss, progress.best_val_accuracy);
  } catch (const std::exception& e) {
    events.log(LogLevel::Warning, std::string("The run index was not updated: ") + e.what());
  }
}

void RunIndexEntry::finish(const RunSummary& summary, const std::function<void(const std::string&)>& warn) {
  try {
    m_index->finishRun(m_id, summary);
  } catch (const std::exception& e) {
    warn(std::string("The run index was not updated: ") + e.what());
  }
}

}  // namespace wb
