#pragma once
// A run's folder under runs_dir: the resolved experiment, metrics.jsonl (one event a line), train.log, the
// final model and summary.json. Files that are replaced are written atomically; the two logs are appended.

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "workbench/events.h"

namespace wb {

class RunFolder {
 public:
  // Creates "<runs_dir>/<YYYYmmdd-HHMMSS>-<name>" (with a suffix if taken). Throws UserError when runs_dir
  // cannot be created or written (read-only, full disk) — before any training.
  static RunFolder create(const std::string& runs_dir, const std::string& name);

  RunFolder(RunFolder&& other) noexcept;
  RunFolder& operator=(RunFolder&&) = delete;
  RunFolder(const RunFolder&) = delete;
  ~RunFolder();

  const std::string& path() const { return m_path; }
  std::string file(const std::string& name) const { return m_path + "/" + name; }
  std::string modelPath() const { return file("model.pt"); }

  void writeExperiment(const nlohmann::json& experiment);
  void append(const EventBatch& batch);
  void writeSummary(const RunSummary& summary, const RunError* error);

 private:
  explicit RunFolder(std::string path);
  std::string m_path;
  std::FILE* m_metrics = nullptr;
  std::FILE* m_log = nullptr;
};

// Checks that `runs_dir` exists or can be created and that a file can be written there (and is not on a full
// disk). Returns an empty string when fine, else what is wrong.
std::string checkRunsDirWritable(const std::string& runs_dir);

}  // namespace wb
