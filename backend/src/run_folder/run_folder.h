#pragma once
// A run's folder under runs_dir: the resolved experiment, metrics.jsonl (one event a line), metrics.csv,
// a TensorBoard event file, train.log, checkpoints/, the final model and summary.json. Files that are
// replaced are written atomically; the logs are appended, and a checkpoint records their lengths so a resumed
// run cuts them back to that point instead of repeating steps.

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "util/tensorboard_writer.h"
#include "workbench/events.h"

namespace wb {

class RunFolder {
 public:
  // Creates "<runs_dir>/<YYYYmmdd-HHMMSS>-<name>" (with a suffix if taken). Throws UserError when runs_dir
  // cannot be created or written (read-only, full disk) — before any training.
  // `task` names the figure columns of metrics.csv.
  static RunFolder create(const std::string& runs_dir, const std::string& name, TaskKind task);

  // An existing run folder, to resume it; temporary files left by a kill during a write are removed. Throws
  // UserError when `path` is not a run folder.
  static RunFolder open(const std::string& path);

  RunFolder(RunFolder&& other) noexcept;
  RunFolder& operator=(RunFolder&&) = delete;
  RunFolder(const RunFolder&) = delete;
  ~RunFolder();

  const std::string& path() const { return m_path; }
  std::string file(const std::string& name) const { return m_path + "/" + name; }
  std::string modelPath() const { return file("model.pt"); }

  void writeExperiment(const nlohmann::json& experiment);
  // Appends the batch to metrics.jsonl, metrics.csv, train.log and the TensorBoard file and flushes them.
  // A failed write or flush throws FileWriteError naming the file (a full disk says so).
  void append(const EventBatch& batch);
  void writeSummary(const RunSummary& summary, const RunError* error);

  // The appended files' lengths now (after a flush), and cutting them back to such lengths.
  nlohmann::json logLengths();
  void truncateLogs(const nlohmann::json& lengths);

 private:
  RunFolder(std::string path, TaskKind task);
  void openLogs();
  void closeLogs();
  void flushLogs();
  std::string m_path;
  std::string m_tensorboard_name;
  std::vector<std::string> m_csv_figures;  // metrics.csv's figure columns (metricsCsvFigures)
  std::FILE* m_metrics = nullptr;
  std::FILE* m_csv = nullptr;
  std::FILE* m_log = nullptr;
  std::unique_ptr<TensorBoardWriter> m_tensorboard;
};

// Checks that `runs_dir` exists or can be created and that a file can be written there (and is not on a full
// disk). Returns an empty string when fine, else what is wrong. With `create` the folder is made (a run is
// about to be written there); without, nothing is made: the nearest existing folder on its path must be
// writable.
std::string checkRunsDirWritable(const std::string& runs_dir, bool create = false);

}  // namespace wb
