#pragma once
// The run index: an SQLite database (runs_dir/runs.sqlite, WAL) that lists every run started under a runs_dir.
// The engine writes it; the CLI's `runs` commands and the window's runs browser read it. Plain C++.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

struct RunRecord {
  int64_t id = 0;
  std::string name;
  std::string experiment_hash;  // of the canonical experiment JSON (16 hex digits)
  std::string status;           // running | finished | failed | interrupted
  std::string started_at;       // UTC, ISO 8601
  std::string ended_at;         // empty while running
  std::string folder;           // absolute path of the run folder
  int64_t steps = 0;
  int64_t epochs = 0;
  double best_val_loss = -1;  // -1: not measured
  double best_val_accuracy = -1;
  double test_loss = -1;
  double test_accuracy = -1;
  int64_t pid = 0;  // of the process that trains it while running
  std::string host;
};

// Runs newest first. A run marked running whose process is gone (same host, pid no longer alive or reused by
// another program) is reported — and rewritten in the index — as interrupted. An absent database is an empty
// list; an unreadable one throws wb::UserError naming the file.
std::vector<RunRecord> listRuns(const std::string& runs_dir);

// By numeric id, or by folder name / path. nullopt when no run matches.
std::optional<RunRecord> findRun(const std::string& runs_dir, const std::string& id_or_folder);

}  // namespace wb
