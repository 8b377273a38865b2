#pragma once
// The run index's writer side: the engine registers a run when its folder is created and updates it as the
// run goes. SQLite in WAL mode, so a crash mid-write leaves the last committed state; readers (the CLI, the
// window) never block the writer for long (busy timeout).

#include <cstdint>
#include <memory>
#include <string>

#include "workbench/events.h"
#include "workbench/experiment.h"
#include "workbench/run_index.h"
#include "workbench/run_info.h"

struct sqlite3;

namespace wb {

class RunIndexDb {
 public:
  // Opens (creating when absent) runs_dir/runs.sqlite. Throws wb::UserError naming the file when it cannot.
  explicit RunIndexDb(const std::string& runs_dir);
  ~RunIndexDb();
  RunIndexDb(const RunIndexDb&) = delete;
  RunIndexDb& operator=(const RunIndexDb&) = delete;

  static std::string fileIn(const std::string& runs_dir);

  // A new run, status running, owned by this process. Returns its id.
  int64_t registerRun(const std::string& name, const std::string& experiment_hash, const std::string& folder);
  // A resumed run: running again, owned by this process, no end time. Registers the folder when the index
  // does not know it (a run folder copied from elsewhere, or an index that was deleted). Returns its id.
  int64_t reopenRun(const std::string& name, const std::string& experiment_hash, const std::string& folder);
  void updateProgress(int64_t id, int64_t steps, int64_t epochs, double best_val_loss,
                      double best_val_accuracy);
  void finishRun(int64_t id, const RunSummary& summary);
  // What was trained (the runs list's columns) and what the user said about it (run.json).
  void describeRun(int64_t id, const Experiment& experiment);
  void setInfo(int64_t id, const RunInfo& info);
  // A run folder that is not indexed, as it is on disk (addRunFolder). Returns its id.
  int64_t importRun(const std::string& name, const std::string& experiment_hash, const std::string& folder,
                    RunIndexStatus status, const std::string& started_at, const RunSummary& summary);
  void removeRun(int64_t id);

  std::vector<RunRecord> list();  // newest first, dead "running" runs rewritten as interrupted

 private:
  void exec(const char* sql);
  void addMissingColumns();
  void backfill(RunRecord& record);  // a run indexed before the describing columns: read from its folder
  sqlite3* m_db = nullptr;
  std::string m_file;
};

// 16 hex digits of FNV-1a over the canonical JSON text: equal experiments, equal hashes.
std::string experimentHash(const std::string& canonical_json);

}  // namespace wb
