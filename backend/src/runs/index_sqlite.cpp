#include "runs/index_sqlite.h"

#include <sqlite3.h>
#include <unistd.h>

#include <ctime>
#include <fstream>
#include <sstream>

#include "runs/run_index_db.h"
#include "workbench/errors.h"

namespace wb {
namespace {

constexpr int kBusyTimeoutMs = 5000;
constexpr const char* kDamagedHint =
    "Check that the runs folder is writable and not full; a damaged index can be deleted — the run folders "
    "themselves are kept.";

}  // namespace

sqlite3* openIndexDatabase(const std::string& file) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string reason = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw UserError("Cannot open the run index " + file + ": " + reason,
                    "Check that output.runs_dir is writable.");
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  try {
    execIndexSql(db, "PRAGMA journal_mode=WAL", file);
    execIndexSql(db, "PRAGMA synchronous=NORMAL",
                 file);  // WAL + NORMAL: a power cut may lose the last commit, never corrupts
  } catch (...) {
    sqlite3_close(db);
    throw;
  }
  return db;
}

IndexConnection::IndexConnection(const std::string& runs_dir, const char* schema)
    : m_file(RunIndexDb::fileIn(runs_dir)) {
  m_db = openIndexDatabase(m_file);
  try {
    execIndexSql(m_db, schema, m_file);
  } catch (...) {
    sqlite3_close(m_db);
    throw;
  }
}

IndexConnection::~IndexConnection() {
  sqlite3_close(m_db);
}

int IndexConnection::changes() const {
  return sqlite3_changes(m_db);
}

void execIndexSql(sqlite3* db, const char* sql, const std::string& file) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string reason = error ? error : sqlite3_errmsg(db);
    sqlite3_free(error);
    throw UserError("The run index " + file + " failed: " + reason, kDamagedHint);
  }
}

IndexStatement::IndexStatement(sqlite3* db, const char* sql, const std::string& file)
    : m_db(db), m_file(file) {
  if (sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr) != SQLITE_OK) fail("prepare");
}

IndexStatement::~IndexStatement() {
  sqlite3_finalize(m_stmt);
}

IndexStatement& IndexStatement::bind(int index, const std::string& value) {
  sqlite3_bind_text(m_stmt, index, value.c_str(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

IndexStatement& IndexStatement::bind(int index, int64_t value) {
  sqlite3_bind_int64(m_stmt, index, value);
  return *this;
}

IndexStatement& IndexStatement::bind(int index, double value) {
  sqlite3_bind_double(m_stmt, index, value);
  return *this;
}

bool IndexStatement::step() {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) fail("step");
  return false;
}

std::string IndexStatement::text(int column) const {
  const auto* value = sqlite3_column_text(m_stmt, column);
  return value ? reinterpret_cast<const char*>(value) : "";
}

int64_t IndexStatement::integer(int column) const {
  return sqlite3_column_int64(m_stmt, column);
}

double IndexStatement::real(int column) const {
  return sqlite3_column_double(m_stmt, column);
}

void IndexStatement::fail(const char* what) {
  throw UserError("The run index " + m_file + " failed (" + what + "): " + sqlite3_errmsg(m_db),
                  kDamagedHint);
}

IndexTransaction::IndexTransaction(sqlite3* db, const std::string& file) : m_db(db), m_file(file) {
  execIndexSql(db, "BEGIN IMMEDIATE", file);
}

IndexTransaction::~IndexTransaction() {
  if (m_open) sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
}

void IndexTransaction::commit() {
  execIndexSql(m_db, "COMMIT", m_file);
  m_open = false;
}

std::string utcNow() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return {};
  return name;
}

int64_t processStartTicks(int64_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return 0;
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  for (int index = 3; index <= 22 && rest >> field; ++index) {
    if (index == 22) return std::stoll(field);
  }
  return 0;
}

}  // namespace wb
