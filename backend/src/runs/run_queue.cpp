#include "workbench/run_queue.h"

#include <sqlite3.h>

#include <filesystem>

#include "runs/index_sqlite.h"
#include "runs/run_index_db.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

constexpr const char* kQueueColumns =
    "id, position, state, label, experiment, cwd, run_folder, message, added_at, started_at, ended_at, "
    "owner_pid, "
    "owner_host, attempts, sweep, overrides, sweep_metric";

// One connection to the index with the queue's table.
constexpr const char* kQueueSchema =
    "CREATE TABLE IF NOT EXISTS queue ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT, position INTEGER NOT NULL, state TEXT NOT NULL,"
    " label TEXT NOT NULL DEFAULT '', experiment TEXT NOT NULL, cwd TEXT NOT NULL DEFAULT '',"
    " run_folder TEXT NOT NULL DEFAULT '', message TEXT NOT NULL DEFAULT '',"
    " added_at TEXT NOT NULL, started_at TEXT NOT NULL DEFAULT '', ended_at TEXT NOT NULL DEFAULT '',"
    " owner_pid INTEGER NOT NULL DEFAULT 0, owner_host TEXT NOT NULL DEFAULT '',"
    " owner_start INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,"
    " sweep TEXT NOT NULL DEFAULT '', overrides TEXT NOT NULL DEFAULT '{}',"
    " sweep_metric TEXT NOT NULL DEFAULT '')";

// One connection to the index with the queue's table.
class QueueDb : public IndexConnection {
 public:
  explicit QueueDb(const std::string& runs_dir) : IndexConnection(runs_dir, kQueueSchema) {}

  std::optional<QueueEntry> find(int64_t id) {
    IndexStatement select(m_db, (std::string("SELECT ") + kQueueColumns + " FROM queue WHERE id = ?").c_str(),
                          m_file);
    select.bind(1, id);
    if (!select.step()) return std::nullopt;
    return read(select);
  }

  QueueEntry require(int64_t id) {
    std::optional<QueueEntry> entry = find(id);
    if (!entry) {
      throw UserError("The queue in " + m_file + " has no entry " + std::to_string(id) + ".",
                      "`workbench-cli queue list` shows the entries and their ids.");
    }
    return *entry;
  }

  static QueueEntry read(const IndexStatement& s) {
    QueueEntry e;
    e.id = s.integer(0);
    e.position = s.integer(1);
    e.state = fromWord<QueueState>(s.text(2)).value_or(QueueState::Unknown);
    e.label = s.text(3);
    e.experiment = s.text(4);
    e.cwd = s.text(5);
    e.run_folder = s.text(6);
    e.message = s.text(7);
    e.added_at = s.text(8);
    e.started_at = s.text(9);
    e.ended_at = s.text(10);
    e.owner_pid = s.integer(11);
    e.owner_host = s.text(12);
    e.attempts = s.integer(13);
    e.sweep = s.text(14);
    e.overrides = s.text(15);
    e.sweep_metric = fromWord<SweepMetric>(s.text(16));  // none: not a trial (""), or a newer engine's word
    return e;
  }

  // The folder of the run a process registered in the runs table (absent before the first run).
  std::string runFolderOf(int64_t pid, int64_t pid_start, const std::string& host) {
    IndexStatement table(m_db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'", m_file);
    if (!table.step()) return {};
    IndexStatement select(m_db,
                          "SELECT folder FROM runs WHERE pid = ? AND host = ? AND (? = 0 OR pid_start = ?) "
                          "ORDER BY id DESC LIMIT 1",
                          m_file);
    select.bind(1, pid).bind(2, host).bind(3, pid_start).bind(4, pid_start);
    return select.step() ? select.text(0) : std::string();
  }

  // Entries running under a process of this machine that is gone go back to the queue, with the run they
  // started (its folder, from the runs table, when the process died before saying it): they resume.
  void requeueOrphans() {
    struct Orphan {
      int64_t id, pid, start;
      std::string folder;
    };
    std::vector<Orphan> orphans;
    const std::string host = hostName();
    {
      IndexStatement select(m_db,
                            "SELECT id, owner_pid, owner_start, run_folder FROM queue WHERE state = ? AND "
                            "owner_host = ?",
                            m_file);
      select.bind(1, wordString(QueueState::Running)).bind(2, host);
      while (select.step()) {
        const int64_t pid = select.integer(1), start = select.integer(2);
        if (pid > 0 && processStartTicks(pid) == start) continue;
        orphans.push_back({select.integer(0), pid, start, select.text(3)});
      }
    }
    for (Orphan& orphan : orphans) {
      if (orphan.folder.empty()) orphan.folder = runFolderOf(orphan.pid, orphan.start, host);
      IndexStatement update(m_db,
                            "UPDATE queue SET state = ?, run_folder = ?, owner_pid = 0, message = ? "
                            "WHERE id = ? AND state = ?",
                            m_file);
      update.bind(1, wordString(QueueState::Queued))
          .bind(2, orphan.folder)
          .bind(3, "its process (pid " + std::to_string(orphan.pid) + ") ended while training" +
                       (orphan.folder.empty() ? "" : ": it resumes from its checkpoint"))
          .bind(4, orphan.id)
          .bind(5, wordString(QueueState::Running));
      update.step();
    }
  }
};

bool indexExists(const std::string& runs_dir) {
  return fs::exists(RunIndexDb::fileIn(runs_dir));
}

// Editing a queue that was never made names the folder, not SQLite's "unable to open database file".
void requireIndex(const std::string& runs_dir) {
  if (indexExists(runs_dir)) return;
  throw UserError(
      "There is no queue in " + runs_dir + " (no runs.sqlite there).",
      "Give the runs folder with --runs-dir (the experiment's output.runs_dir), or add an entry first "
      "with `workbench-cli queue add EXPERIMENT.json`.");
}

}  // namespace

int64_t addToQueue(const std::string& runs_dir, const QueueAddition& addition) {
  return addAllToQueue(runs_dir, {addition}).front();
}

std::vector<int64_t> addAllToQueue(const std::string& runs_dir, const std::vector<QueueAddition>& additions) {
  std::error_code error;
  fs::create_directories(runs_dir, error);
  QueueDb q(runs_dir);
  std::vector<int64_t> ids;
  IndexTransaction transaction(q.db(), q.file());
  for (const QueueAddition& addition : additions) {
    IndexStatement insert(
        q.db(),
        "INSERT INTO queue (position, state, label, experiment, cwd, added_at, sweep, overrides, "
        "message, sweep_metric) "
        "VALUES ((SELECT COALESCE(MAX(position), 0) + 1 FROM queue), ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        q.file());
    const QueueState state = !addition.failed.empty() ? QueueState::Failed
                             : addition.held          ? QueueState::Held
                                                      : QueueState::Queued;
    insert.bind(1, wordString(state))
        .bind(2, addition.label)
        .bind(3, addition.experiment)
        .bind(4, addition.cwd);
    insert.bind(5, utcNow()).bind(6, addition.sweep).bind(7, addition.overrides).bind(8, addition.failed);
    insert.bind(9, addition.sweep_metric ? wordString(*addition.sweep_metric) : std::string());
    insert.step();
    ids.push_back(sqlite3_last_insert_rowid(q.db()));
  }
  transaction.commit();
  return ids;
}

std::vector<QueueEntry> listQueue(const std::string& runs_dir) {
  std::vector<QueueEntry> entries;
  if (!indexExists(runs_dir)) return entries;
  QueueDb q(runs_dir);
  {
    IndexTransaction transaction(q.db(), q.file());
    q.requeueOrphans();
    transaction.commit();
  }
  IndexStatement select(
      q.db(), (std::string("SELECT ") + kQueueColumns + " FROM queue ORDER BY position, id").c_str(),
      q.file());
  while (select.step()) entries.push_back(QueueDb::read(select));
  return entries;
}

std::optional<QueueEntry> findQueueEntry(const std::string& runs_dir, int64_t id) {
  if (!indexExists(runs_dir)) return std::nullopt;
  QueueDb q(runs_dir);
  return q.find(id);
}

void removeFromQueue(const std::string& runs_dir, int64_t id) {
  requireIndex(runs_dir);
  QueueDb q(runs_dir);
  IndexTransaction transaction(q.db(), q.file());
  q.requeueOrphans();
  const QueueEntry entry = q.require(id);
  if (entry.state == QueueState::Running) {
    throw UserError(
        "Queue entry " + std::to_string(id) + " (" + entry.label + ") is training" +
            (entry.run_folder.empty() ? "" : " in " + entry.run_folder) + ": it cannot be removed now.",
        "Stop its run first (`workbench-cli control RUN_DIR stop`, or Ctrl-C in its worker), then "
        "remove it.");
  }
  IndexStatement remove(q.db(), "DELETE FROM queue WHERE id = ?", q.file());
  remove.bind(1, id);
  remove.step();
  transaction.commit();
}

void holdInQueue(const std::string& runs_dir, int64_t id, bool hold) {
  requireIndex(runs_dir);
  QueueDb q(runs_dir);
  IndexTransaction transaction(q.db(), q.file());
  q.requeueOrphans();
  const QueueEntry entry = q.require(id);
  IndexStatement update(q.db(),
                        hold
                            ? "UPDATE queue SET state = ?1 WHERE id = ?2 AND state = ?3"
                            : "UPDATE queue SET state = ?3, message = '' WHERE id = ?2 AND state IN (?1, ?4)",
                        q.file());
  update.bind(1, wordString(QueueState::Held)).bind(2, id).bind(3, wordString(QueueState::Queued));
  if (!hold) update.bind(4, wordString(QueueState::Failed));
  update.step();
  if (q.changes() == 0 && entry.state != (hold ? QueueState::Held : QueueState::Queued)) {
    throw UserError("Queue entry " + std::to_string(id) + " is " + wordString(entry.state) + ": only " +
                        (hold ? "a queued entry can be held." : "a held or failed entry can be released."),
                    "`workbench-cli queue list` shows each entry's state.");
  }
  transaction.commit();
}

void moveInQueue(const std::string& runs_dir, int64_t id, int64_t before_id) {
  requireIndex(runs_dir);
  QueueDb q(runs_dir);
  IndexTransaction transaction(q.db(), q.file());
  q.require(id);
  int64_t position = 0;
  if (before_id == 0) {
    IndexStatement last(q.db(), "SELECT COALESCE(MAX(position), 0) + 1 FROM queue", q.file());
    last.step();
    position = last.integer(0);
  } else {
    position = q.require(before_id).position;
    IndexStatement shift(q.db(), "UPDATE queue SET position = position + 1 WHERE position >= ?", q.file());
    shift.bind(1, position);
    shift.step();
  }
  IndexStatement update(q.db(), "UPDATE queue SET position = ? WHERE id = ?", q.file());
  update.bind(1, position).bind(2, id);
  update.step();
  transaction.commit();
}

std::optional<QueueEntry> claimFromQueue(const std::string& runs_dir, int64_t owner_pid) {
  if (!indexExists(runs_dir)) return std::nullopt;
  QueueDb q(runs_dir);
  IndexTransaction transaction(q.db(), q.file());
  q.requeueOrphans();
  IndexStatement next(q.db(), "SELECT id FROM queue WHERE state = ? ORDER BY position, id LIMIT 1", q.file());
  next.bind(1, wordString(QueueState::Queued));
  if (!next.step()) return std::nullopt;  // rolled back: nothing was written
  const int64_t id = next.integer(0);
  IndexStatement claim(q.db(),
                       "UPDATE queue SET state = ?6, owner_pid = ?1, owner_host = ?2, owner_start = ?3, "
                       "attempts = attempts + 1, started_at = ?4, ended_at = '' WHERE id = ?5 AND state = ?7",
                       q.file());
  claim.bind(1, owner_pid)
      .bind(2, hostName())
      .bind(3, processStartTicks(owner_pid))
      .bind(4, utcNow())
      .bind(5, id)
      .bind(6, wordString(QueueState::Running))
      .bind(7, wordString(QueueState::Queued));
  claim.step();
  transaction.commit();
  return q.find(id);
}

QueueEntry ownQueueEntry(const std::string& runs_dir, int64_t id, int64_t owner_pid) {
  requireIndex(runs_dir);
  QueueDb q(runs_dir);
  IndexStatement update(
      q.db(), "UPDATE queue SET owner_pid = ?, owner_host = ?, owner_start = ? WHERE id = ? AND state = ?",
      q.file());
  update.bind(1, owner_pid).bind(2, hostName()).bind(3, processStartTicks(owner_pid)).bind(4, id);
  update.bind(5, wordString(QueueState::Running));
  update.step();
  const QueueEntry entry = q.require(id);
  if (q.changes() == 0 || entry.state != QueueState::Running) {
    throw UserError(
        "Queue entry " + std::to_string(id) + " is " + wordString(entry.state) + ", not claimed by a worker.",
        "Queued entries are trained by `workbench-cli queue run`.");
  }
  return entry;
}

void endQueueEntry(const std::string& runs_dir, int64_t id, QueueState state, const std::string& run_folder,
                   const std::string& message) {
  requireIndex(runs_dir);
  QueueDb q(runs_dir);
  IndexStatement update(
      q.db(),
      "UPDATE queue SET state = ?, run_folder = CASE WHEN ? = '' THEN run_folder ELSE ? END, "
      "message = ?, ended_at = ?, owner_pid = 0 WHERE id = ?",
      q.file());
  update.bind(1, wordString(state)).bind(2, run_folder).bind(3, run_folder).bind(4, message);
  update.bind(5, state == QueueState::Queued ? std::string() : utcNow()).bind(6, id);
  update.step();
}

std::string runFolderOfProcess(const std::string& runs_dir, int64_t pid) {
  if (!indexExists(runs_dir)) return {};
  QueueDb q(runs_dir);
  return q.runFolderOf(pid, 0, hostName());
}

}  // namespace wb
