#include "runs/run_index_db.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runs/index_sqlite.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/run_info.h"

namespace wb {
namespace {

using Statement = IndexStatement;

constexpr const char* kColumns =
    "id, name, experiment_hash, status, started_at, ended_at, folder, steps, epochs, best_val_loss, "
    "best_val_accuracy, test_loss, test_accuracy, pid, host, pid_start, model, dataset, optimizer, lr, "
    "batch_size, "
    "amp, devices, wall_s, tags, notes, described";

// Columns added after the first release of the index: an older runs.sqlite gets them when opened.
struct AddedColumn {
  const char* name;
  const char* definition;
};
const AddedColumn kAddedColumns[] = {
    {"model", "TEXT NOT NULL DEFAULT ''"},
    {"dataset", "TEXT NOT NULL DEFAULT ''"},
    {"optimizer", "TEXT NOT NULL DEFAULT ''"},
    {"lr", "REAL NOT NULL DEFAULT 0"},
    {"batch_size", "INTEGER NOT NULL DEFAULT 0"},
    {"amp", "TEXT NOT NULL DEFAULT ''"},
    {"devices", "TEXT NOT NULL DEFAULT ''"},
    {"wall_s", "REAL NOT NULL DEFAULT -1"},
    {"tags", "TEXT NOT NULL DEFAULT '[]'"},
    {"notes", "TEXT NOT NULL DEFAULT ''"},
    // 1 once model..devices were filled from the experiment (or found unreadable): a run indexed before these
    // columns existed is described from its folder the first time it is listed.
    {"described", "INTEGER NOT NULL DEFAULT 0"},
};

std::string tagsToText(const std::vector<std::string>& tags) {
  return nlohmann::json(tags).dump();
}

std::vector<std::string> tagsFromText(const std::string& text) {
  std::vector<std::string> tags;
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_array()) return tags;
  for (const auto& tag : doc) {
    if (tag.is_string()) tags.push_back(tag.get<std::string>());
  }
  return tags;
}

std::string joinDevices(const std::vector<std::string>& devices) {
  std::string out;
  for (const std::string& d : devices) out += (out.empty() ? "" : ", ") + d;
  return out;
}

void describe(RunRecord& r, const Experiment& e) {
  r.model = experimentModelName(e);
  r.dataset = wordString(e.data.dataset);
  r.optimizer = wordString(e.optimizer.name);
  r.lr = e.optimizer.lr;
  r.batch_size = e.train.batch_size;
  r.amp = wordString(e.train.amp);
  r.devices = joinDevices(e.train.devices);
}

RunRecord readRecord(const Statement& s) {
  RunRecord r;
  r.id = s.integer(0);
  r.name = s.text(1);
  r.experiment_hash = s.text(2);
  r.status = indexStatusFromWord(s.text(3));
  r.started_at = s.text(4);
  r.ended_at = s.text(5);
  r.folder = s.text(6);
  r.steps = s.integer(7);
  r.epochs = s.integer(8);
  r.best_val_loss = s.real(9);
  r.best_val_accuracy = s.real(10);
  r.test_loss = s.real(11);
  r.test_accuracy = s.real(12);
  r.pid = s.integer(13);
  r.host = s.text(14);
  r.model = s.text(16);
  r.dataset = s.text(17);
  r.optimizer = s.text(18);
  r.lr = s.real(19);
  r.batch_size = s.integer(20);
  r.amp = s.text(21);
  r.devices = s.text(22);
  r.wall_s = s.real(23);
  r.tags = tagsFromText(s.text(24));
  r.notes = s.text(25);
  return r;
}

}  // namespace

std::string RunIndexDb::fileIn(const std::string& runs_dir) {
  return runs_dir + "/runs.sqlite";
}

RunIndexDb::RunIndexDb(const std::string& runs_dir) : m_file(fileIn(runs_dir)) {
  m_db = openIndexDatabase(m_file);
  try {
    exec(
        "CREATE TABLE IF NOT EXISTS runs ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " name TEXT NOT NULL, experiment_hash TEXT NOT NULL, status TEXT NOT NULL,"
        " started_at TEXT NOT NULL, ended_at TEXT NOT NULL DEFAULT '',"
        " folder TEXT NOT NULL UNIQUE,"
        " steps INTEGER NOT NULL DEFAULT 0, epochs INTEGER NOT NULL DEFAULT 0,"
        " best_val_loss REAL NOT NULL DEFAULT -1, best_val_accuracy REAL NOT NULL DEFAULT -1,"
        " test_loss REAL NOT NULL DEFAULT -1, test_accuracy REAL NOT NULL DEFAULT -1,"
        " pid INTEGER NOT NULL DEFAULT 0, host TEXT NOT NULL DEFAULT '', pid_start INTEGER NOT NULL DEFAULT "
        "0)");
    addMissingColumns();
  } catch (...) {
    sqlite3_close(m_db);
    m_db = nullptr;
    throw;
  }
}

RunIndexDb::~RunIndexDb() {
  sqlite3_close(m_db);
}

void RunIndexDb::exec(const char* sql) {
  execIndexSql(m_db, sql, m_file);
}

void RunIndexDb::addMissingColumns() {
  std::vector<std::string> present;
  {
    Statement info(m_db, "PRAGMA table_info(runs)", m_file);
    while (info.step()) present.push_back(info.text(1));
  }
  for (const AddedColumn& column : kAddedColumns) {
    bool found = false;
    for (const std::string& name : present) found = found || name == column.name;
    if (found) continue;
    const std::string sql =
        std::string("ALTER TABLE runs ADD COLUMN ") + column.name + " " + column.definition;
    char* error = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      // Another process opening the same index may have added it a moment ago.
      const std::string reason = error ? error : "";
      sqlite3_free(error);
      if (reason.find("duplicate column") == std::string::npos) {
        throw UserError("The run index " + m_file + " could not be upgraded: " + reason,
                        "Check that the runs folder is writable; a damaged index can be deleted — the run "
                        "folders themselves are kept.");
      }
    }
  }
}

int64_t RunIndexDb::registerRun(const std::string& name, const std::string& experiment_hash,
                                const std::string& folder) {
  Statement insert(
      m_db,
      "INSERT INTO runs (name, experiment_hash, status, started_at, folder, pid, host, pid_start) "
      "VALUES (?1, ?2, ?8, ?3, ?4, ?5, ?6, ?7)",
      m_file);
  const int64_t pid = ::getpid();
  insert.bind(1, name)
      .bind(2, experiment_hash)
      .bind(3, utcNow())
      .bind(4, folder)
      .bind(5, pid)
      .bind(6, hostName());
  insert.bind(7, processStartTicks(pid)).bind(8, wordString(RunIndexStatus::Running));
  insert.step();
  return sqlite3_last_insert_rowid(m_db);
}

int64_t RunIndexDb::reopenRun(const std::string& name, const std::string& experiment_hash,
                              const std::string& folder) {
  int64_t id = 0;
  {
    Statement find(m_db, "SELECT id FROM runs WHERE folder = ?", m_file);
    find.bind(1, folder);
    if (find.step()) id = find.integer(0);
  }
  if (id == 0) return registerRun(name, experiment_hash, folder);
  Statement update(m_db,
                   "UPDATE runs SET status = ?6, ended_at = '', experiment_hash = ?1, pid = ?2, host = ?3, "
                   "pid_start = ?4 WHERE id = ?5",
                   m_file);
  const int64_t pid = ::getpid();
  update.bind(1, experiment_hash)
      .bind(2, pid)
      .bind(3, hostName())
      .bind(4, processStartTicks(pid))
      .bind(5, id)
      .bind(6, wordString(RunIndexStatus::Running));
  update.step();
  return id;
}

void RunIndexDb::updateProgress(int64_t id, int64_t steps, int64_t epochs, double best_val_loss,
                                double best_val_accuracy) {
  Statement update(
      m_db, "UPDATE runs SET steps = ?, epochs = ?, best_val_loss = ?, best_val_accuracy = ? WHERE id = ?",
      m_file);
  update.bind(1, steps).bind(2, epochs).bind(3, best_val_loss).bind(4, best_val_accuracy).bind(5, id);
  update.step();
}

void RunIndexDb::finishRun(int64_t id, const RunSummary& s) {
  Statement update(m_db,
                   "UPDATE runs SET status = ?, ended_at = ?, steps = ?, epochs = ?, best_val_loss = ?, "
                   "best_val_accuracy = ?, test_loss = ?, test_accuracy = ?, wall_s = ? WHERE id = ?",
                   m_file);
  update.bind(1, wordString(indexStatus(s.status))).bind(2, utcNow()).bind(3, s.steps).bind(4, s.epochs);
  update.bind(5, s.best_val_loss).bind(6, s.best_val_accuracy).bind(7, s.test_loss).bind(8, s.test_accuracy);
  update.bind(9, s.wall_s).bind(10, id);
  update.step();
}

void RunIndexDb::describeRun(int64_t id, const Experiment& experiment) {
  RunRecord r;
  describe(r, experiment);
  Statement update(m_db,
                   "UPDATE runs SET model = ?, dataset = ?, optimizer = ?, lr = ?, batch_size = ?, amp = ?, "
                   "devices = ?, described = 1 WHERE id = ?",
                   m_file);
  update.bind(1, r.model).bind(2, r.dataset).bind(3, r.optimizer).bind(4, r.lr).bind(5, r.batch_size);
  update.bind(6, r.amp).bind(7, r.devices).bind(8, id);
  update.step();
}

void RunIndexDb::setInfo(int64_t id, const RunInfo& info) {
  Statement update(m_db, "UPDATE runs SET name = ?, tags = ?, notes = ? WHERE id = ?", m_file);
  update.bind(1, info.name).bind(2, tagsToText(info.tags)).bind(3, info.notes).bind(4, id);
  update.step();
}

int64_t RunIndexDb::importRun(const std::string& name, const std::string& experiment_hash,
                              const std::string& folder, RunIndexStatus status, const std::string& started_at,
                              const RunSummary& s) {
  Statement insert(
      m_db,
      "INSERT INTO runs (name, experiment_hash, status, started_at, ended_at, folder, steps, epochs, "
      "best_val_loss, best_val_accuracy, test_loss, test_accuracy, wall_s, host) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      m_file);
  insert.bind(1, name).bind(2, experiment_hash).bind(3, wordString(status)).bind(4, started_at);
  insert.bind(5, status == RunIndexStatus::Interrupted ? std::string() : started_at)
      .bind(6, folder)
      .bind(7, s.steps);
  insert.bind(8, s.epochs).bind(9, s.best_val_loss).bind(10, s.best_val_accuracy).bind(11, s.test_loss);
  insert.bind(12, s.test_accuracy).bind(13, s.wall_s).bind(14, hostName());
  insert.step();
  return sqlite3_last_insert_rowid(m_db);
}

void RunIndexDb::removeRun(int64_t id) {
  Statement remove(m_db, "DELETE FROM runs WHERE id = ?", m_file);
  remove.bind(1, id);
  remove.step();
}

void RunIndexDb::backfill(RunRecord& r) {
  const ParseResult parsed = loadExperimentFile(r.folder + "/experiment.json");
  if (parsed.ok()) describe(r, parsed.experiment);
  if (std::optional<RunInfo> info = readRunInfo(r.folder)) {
    if (!info->name.empty()) r.name = info->name;
    r.tags = info->tags;
    r.notes = info->notes;
  }
  if (r.wall_s < 0) {
    std::ifstream in(r.folder + "/summary.json");
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
    if (doc.is_object()) r.wall_s = summaryFromJson(doc).wall_s;
  }
  Statement update(m_db,
                   "UPDATE runs SET name = ?, model = ?, dataset = ?, optimizer = ?, lr = ?, batch_size = ?, "
                   "amp = ?, devices = ?, wall_s = ?, tags = ?, notes = ?, described = 1 WHERE id = ?",
                   m_file);
  update.bind(1, r.name).bind(2, r.model).bind(3, r.dataset).bind(4, r.optimizer).bind(5, r.lr);
  update.bind(6, r.batch_size)
      .bind(7, r.amp)
      .bind(8, r.devices)
      .bind(9, r.wall_s)
      .bind(10, tagsToText(r.tags));
  update.bind(11, r.notes).bind(12, r.id);
  update.step();
}

std::vector<RunRecord> RunIndexDb::list() {
  std::vector<RunRecord> records;
  std::vector<int64_t> dead;
  std::vector<size_t> undescribed;
  const std::string host = hostName();
  {
    Statement select(m_db, (std::string("SELECT ") + kColumns + " FROM runs ORDER BY id DESC").c_str(),
                     m_file);
    while (select.step()) {
      RunRecord record = readRecord(select);
      const int64_t pid_start = select.integer(15);
      if (select.integer(26) == 0) undescribed.push_back(records.size());
      // Only a process on this machine can be checked; a run started elsewhere keeps what it said.
      if (record.status == RunIndexStatus::Running && record.host == host &&
          (record.pid <= 0 || processStartTicks(record.pid) != pid_start)) {
        record.status = RunIndexStatus::Interrupted;
        dead.push_back(record.id);
      }
      records.push_back(std::move(record));
    }
  }
  for (int64_t id : dead) {
    Statement update(m_db, "UPDATE runs SET status = ? WHERE id = ? AND status = ?", m_file);
    update.bind(1, wordString(RunIndexStatus::Interrupted))
        .bind(2, id)
        .bind(3, wordString(RunIndexStatus::Running));
    update.step();
  }
  for (size_t i : undescribed) backfill(records[i]);
  return records;
}

RunIndexStatus indexStatusFromWord(std::string_view word) {
  return fromWord<RunIndexStatus>(word).value_or(RunIndexStatus::Unknown);
}

RunIndexStatus indexStatus(RunStatus ended) {
  switch (ended) {
    case RunStatus::Completed:
    case RunStatus::EarlyStopped:
      return RunIndexStatus::Finished;
    case RunStatus::Interrupted:
      return RunIndexStatus::Interrupted;
    case RunStatus::Failed:
      return RunIndexStatus::Failed;
  }
  return RunIndexStatus::Failed;
}

std::string experimentHash(const std::string& canonical_json) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a 64 offset basis
  for (unsigned char c : canonical_json) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

}  // namespace wb
