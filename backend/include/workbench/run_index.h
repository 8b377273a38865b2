#pragma once
// The run index: an SQLite database (runs_dir/runs.sqlite, WAL) that lists every run started under a
// runs_dir. The engine writes it; the CLI's `runs` commands and the window's runs browser read it. Plain C++.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workbench/events.h"
#include "workbench/word_set.h"

namespace wb {

// A run's status in the index (runs.sqlite's `status` column; the runs list, `workbench-cli runs`, the
// window's runs browser). The words are what the index stores. An index written by a newer engine may hold a
// word this one does not know: it reads as Unknown ("unknown" where it is printed), which nothing treats as
// training, resumable or finished, and which the index never writes back over the stored word.
enum class RunIndexStatus { Running, Finished, Failed, Interrupted, Unknown };
template <>
struct Words<RunIndexStatus> {
  static constexpr std::array<Word<RunIndexStatus>, 5> table{{{RunIndexStatus::Running, "running"},
                                                              {RunIndexStatus::Finished, "finished"},
                                                              {RunIndexStatus::Failed, "failed"},
                                                              {RunIndexStatus::Interrupted, "interrupted"},
                                                              {RunIndexStatus::Unknown, "unknown"}}};
};
static_assert(isWholeWordTable<RunIndexStatus>());

// The status a word of the index stands for: Unknown for a word not in the table.
RunIndexStatus indexStatusFromWord(std::string_view word);

// How a run ended, as the index keeps it: completed and stopped early are both Finished.
RunIndexStatus indexStatus(RunStatus ended);

struct RunRecord {
  int64_t id = 0;
  std::string name;             // the display name (run.json's; renaming a run changes it, not the folder)
  std::string experiment_hash;  // of the canonical experiment JSON (16 hex digits)
  RunIndexStatus status = RunIndexStatus::Running;
  std::string started_at;  // UTC, ISO 8601
  std::string ended_at;    // empty while running
  std::string folder;      // absolute path of the run folder
  int64_t steps = 0;
  int64_t epochs = 0;
  double best_val_loss = -1;  // -1: not measured
  double best_val_accuracy = -1;
  double test_loss = -1;
  double test_accuracy = -1;
  int64_t pid = 0;  // of the process that trains it while running
  std::string host;
  // What was trained, from the experiment (empty / 0 for a run whose experiment.json cannot be read).
  std::string model;  // the preset ("cnn"), "layers" for a layer list, "torchscript"
  std::string dataset;
  std::string optimizer;
  double lr = 0;
  int64_t batch_size = 0;
  std::string amp;      // off | bf16 | fp16
  std::string devices;  // "cpu", "cuda:0, cuda:1"
  double wall_s = -1;   // training time of a run that ended (its summary); -1 otherwise
  std::vector<std::string> tags;
  std::string notes;
};

// Runs newest first. A run marked running whose process is gone (same host, pid no longer alive or reused by
// another program) is reported — and rewritten in the index — as interrupted. An absent database is an empty
// list; an unreadable one throws wb::UserError naming the file.
std::vector<RunRecord> listRuns(const std::string& runs_dir);

// By numeric id, or by folder name / path. nullopt when no run matches.
std::optional<RunRecord> findRun(const std::string& runs_dir, const std::string& id_or_folder);

struct RunInfo;
// Renames, tags or annotates a run: writes the run folder's run.json (atomically), then the index. An empty
// name is refused. Throws wb::UserError naming the run when the folder is not in the index or a write fails.
void updateRunInfo(const std::string& runs_dir, const std::string& folder, const RunInfo& info);

// Adds a run folder the index does not know (copied from another machine, or older than the index): its
// experiment, summary (status, metrics; a folder without one counts as interrupted) and run.json. Returns the
// run as listed; a folder already indexed is returned as it is. Throws wb::UserError when it is not a run
// folder.
RunRecord addRunFolder(const std::string& runs_dir, const std::string& folder);

// Deletes a run: its folder with everything in it, and its row in the index. A run that is training (its
// process alive) is refused with wb::UserError, as is a folder that is not a run of this runs_dir.
void deleteRun(const std::string& runs_dir, const std::string& folder);

}  // namespace wb
