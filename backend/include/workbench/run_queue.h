#pragma once
// The run queue: experiments waiting to be trained one after another, kept in the runs folder's index
// (runs_dir/runs.sqlite, the same database as the runs list), so that the queue outlives the window and the
// process that works it: a worker killed mid-run leaves its entry running with a dead owner, and the next
// worker resumes that run from its checkpoint. Entries are taken in one write transaction, so two workers on
// one queue never train the same entry. Plain C++; every call opens the index, does its work and closes it
// (any thread, any process).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workbench/sweep.h"
#include "workbench/word_set.h"

namespace wb {

// Where an entry of the queue is: waiting (queued), waiting until released (held), training, or ended (done,
// failed). The words are what the index's queue table stores. A word this engine does not know (a newer
// engine's) reads as Unknown: no worker takes such an entry and nothing here rewrites its stored word.
enum class QueueState { Queued, Held, Running, Done, Failed, Unknown };
template <>
struct Words<QueueState> {
  static constexpr std::array<Word<QueueState>, 6> table{{{QueueState::Queued, "queued"},
                                                          {QueueState::Held, "held"},
                                                          {QueueState::Running, "running"},
                                                          {QueueState::Done, "done"},
                                                          {QueueState::Failed, "failed"},
                                                          {QueueState::Unknown, "unknown"}}};
};
static_assert(isWholeWordTable<QueueState>());

struct QueueEntry {
  int64_t id = 0;
  int64_t position = 0;  // the order: smaller first
  QueueState state = QueueState::Queued;
  std::string label;       // what the lists show (the experiment's name when none was given)
  std::string experiment;  // the resolved experiment, JSON
  std::string cwd;         // where it was queued: relative paths in the experiment are relative to it
  std::string run_folder;  // the run it trains, once started (a resumed entry continues this one)
  std::string message;     // why it failed, or how it ended
  std::string added_at;    // UTC, ISO 8601
  std::string started_at;  // the last start; empty while it waits
  std::string ended_at;
  int64_t owner_pid = 0;  // the process training it while running
  std::string owner_host;
  int64_t attempts = 0;                     // starts, resumes included
  std::string sweep;                        // the sweep it is a trial of (workbench/sweep.h), or empty
  std::string overrides;                    // the trial's values, JSON ({"optimizer.lr": 0.003})
  std::optional<SweepMetric> sweep_metric;  // what the sweep compares its trials on; none outside a sweep
};

struct QueueAddition {
  std::string experiment;  // the resolved experiment, JSON (checked by the caller)
  std::string label;
  std::string cwd;
  bool held = false;  // added held: waits until released
  std::string sweep;
  std::string overrides = "{}";
  std::optional<SweepMetric> sweep_metric;
  std::string failed;  // non-empty: added failed, with this reason (a sweep's combination the checks refuse)
};

// Adds an entry at the end of the queue. Returns its id. Throws wb::UserError naming the index when it
// cannot.
int64_t addToQueue(const std::string& runs_dir, const QueueAddition& addition);
// Several at once (a sweep's trials): all of them, in order, or none.
std::vector<int64_t> addAllToQueue(const std::string& runs_dir, const std::vector<QueueAddition>& additions);

// The entries in queue order, finished ones too. An entry running under a process of this machine that is
// gone (killed) is put back as queued first, keeping its run folder: the next worker resumes it.
std::vector<QueueEntry> listQueue(const std::string& runs_dir);

std::optional<QueueEntry> findQueueEntry(const std::string& runs_dir, int64_t id);

// Removes an entry that is not running (the run folder of one that ran stays). wb::UserError when the entry
// does not exist or is running (stop its run first: `workbench-cli control RUN_DIR stop`).
void removeFromQueue(const std::string& runs_dir, int64_t id);

// Holds a queued entry (no worker takes it) or releases a held one; a failed entry released is queued again.
void holdInQueue(const std::string& runs_dir, int64_t id, bool hold);

// Moves an entry before another (before_id 0: to the end).
void moveInQueue(const std::string& runs_dir, int64_t id, int64_t before_id);

// The worker's side. Takes the first queued entry for `owner_pid` (running from now on) and returns it;
// nullopt when none waits.
std::optional<QueueEntry> claimFromQueue(const std::string& runs_dir, int64_t owner_pid);

// The process that trains a claimed entry makes it its own (its pid then tells whether it still runs).
// wb::UserError when the entry is not running.
QueueEntry ownQueueEntry(const std::string& runs_dir, int64_t id, int64_t owner_pid);

// How a claimed entry ended: Done, Failed (message: why), or Queued (interrupted: resumed next time).
void endQueueEntry(const std::string& runs_dir, int64_t id, QueueState state, const std::string& run_folder,
                   const std::string& message);

// The run folder the index lists for a process (the run a trial's process registered), or empty.
std::string runFolderOfProcess(const std::string& runs_dir, int64_t pid);

}  // namespace wb
