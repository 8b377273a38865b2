#pragma once
// What the run index's tables share: one connection's set-up (WAL, busy timeout), statements that throw
// wb::UserError naming the file, transactions, and who owns a row (host, pid and the pid's start time).

#include <cstdint>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace wb {

// Opens (creating when absent) an index file in WAL mode with the busy timeout. Throws wb::UserError naming
// it.
sqlite3* openIndexDatabase(const std::string& file);

// Runs SQL without results; throws wb::UserError naming the file.
void execIndexSql(sqlite3* db, const char* sql, const std::string& file);

class IndexStatement {
 public:
  IndexStatement(sqlite3* db, const char* sql, const std::string& file);
  ~IndexStatement();
  IndexStatement(const IndexStatement&) = delete;
  IndexStatement& operator=(const IndexStatement&) = delete;

  IndexStatement& bind(int index, const std::string& value);
  IndexStatement& bind(int index, int64_t value);
  IndexStatement& bind(int index, double value);
  bool step();  // true: a row is there
  std::string text(int column) const;
  int64_t integer(int column) const;
  double real(int column) const;

 private:
  [[noreturn]] void fail(const char* what);
  sqlite3* m_db;
  const std::string& m_file;
  sqlite3_stmt* m_stmt = nullptr;
};

// BEGIN IMMEDIATE: the write lock is taken at once (waiting up to the busy timeout), so that what is read
// inside is still true when it is written — two processes claiming from one queue never take the same entry.
// Rolled back unless commit() is called.
class IndexTransaction {
 public:
  IndexTransaction(sqlite3* db, const std::string& file);
  ~IndexTransaction();
  IndexTransaction(const IndexTransaction&) = delete;
  IndexTransaction& operator=(const IndexTransaction&) = delete;
  void commit();

 private:
  sqlite3* m_db;
  const std::string& m_file;
  bool m_open = true;
};

// One connection to a runs folder's index (runs.sqlite) with the tables `schema` makes (CREATE TABLE IF NOT
// EXISTS …): what each of the index's parts (the queue, the sweeps' rungs) opens. Throws wb::UserError naming
// the file.
class IndexConnection {
 public:
  IndexConnection(const std::string& runs_dir, const char* schema);
  ~IndexConnection();
  IndexConnection(const IndexConnection&) = delete;
  IndexConnection& operator=(const IndexConnection&) = delete;
  sqlite3* db() const { return m_db; }
  const std::string& file() const { return m_file; }
  int changes() const;  // rows the last statement changed

 protected:
  std::string m_file;
  sqlite3* m_db = nullptr;
};

std::string utcNow();  // ISO 8601, seconds
std::string hostName();
// The start time of a process (field 22 of /proc/PID/stat, in clock ticks since boot): with the pid it tells
// a live process from a pid that the system has since given to another program. 0 when the process is gone.
int64_t processStartTicks(int64_t pid);

}  // namespace wb
