#include "workbench/run_index.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runs/run_index_db.h"
#include "support/temporary_folder.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

class RunIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::folderForThisTest(
        "run-index-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  }
  fs::path dir;
};

TEST_F(RunIndexTest, AbsentIndexIsEmpty) {
  EXPECT_TRUE(listRuns(dir.string()).empty());
}

TEST_F(RunIndexTest, RegistersUpdatesAndFinishesRunsNewestFirst) {
  {
    RunIndexDb db(dir.string());
    const int64_t a = db.registerRun("first", experimentHash("{}"), (dir / "20261202-100000-first").string());
    const int64_t b =
        db.registerRun("second", experimentHash("{\"x\":1}"), (dir / "20261202-110000-second").string());
    EXPECT_LT(a, b);
    db.updateProgress(a, 120, 2, 0.5, 0.8);
    RunSummary summary;
    summary.status = RunStatus::Completed;
    summary.steps = 200;
    summary.epochs = 3;
    summary.best_val_loss = 0.4;
    summary.best_val_accuracy = 0.85;
    summary.test_loss = 0.42;
    summary.test_accuracy = 0.84;
    db.finishRun(a, summary);
  }
  const std::vector<RunRecord> runs = listRuns(dir.string());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "second");
  EXPECT_EQ(runs[0].status, RunIndexStatus::Running);  // this process is alive: still running
  EXPECT_TRUE(runs[0].ended_at.empty());
  EXPECT_EQ(runs[1].name, "first");
  EXPECT_EQ(runs[1].status, RunIndexStatus::Finished);
  EXPECT_EQ(runs[1].steps, 200);
  EXPECT_DOUBLE_EQ(runs[1].test_accuracy, 0.84);
  EXPECT_DOUBLE_EQ(runs[1].best_val_accuracy, 0.85);
  EXPECT_FALSE(runs[1].ended_at.empty());
  EXPECT_EQ(runs[1].experiment_hash.size(), 16u);
  EXPECT_NE(runs[0].experiment_hash, runs[1].experiment_hash);

  ASSERT_TRUE(findRun(dir.string(), std::to_string(runs[1].id)));
  EXPECT_EQ(findRun(dir.string(), std::to_string(runs[1].id))->name, "first");
  ASSERT_TRUE(findRun(dir.string(), "20261202-110000-second"));
  EXPECT_EQ(findRun(dir.string(), "20261202-110000-second")->id, runs[0].id);
  EXPECT_FALSE(findRun(dir.string(), "999"));
  EXPECT_FALSE(findRun(dir.string(), "no-such-run"));
}

// A process that registers a run and dies without finishing it (as kill -9 would leave it): the index must
// show the run as interrupted, not as running forever.
TEST_F(RunIndexTest, RunOfADeadProcessShowsAsInterrupted) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      RunIndexDb db(dir.string());
      db.registerRun("crashes", experimentHash("{}"), (dir / "crashed-run").string());
    } catch (...) {
      ::_exit(3);
    }
    ::_exit(0);  // no finishRun, no destructors: as abrupt as a crash after the commit
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);

  std::vector<RunRecord> runs = listRuns(dir.string());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, RunIndexStatus::Interrupted);
  // Rewritten in the index, not only in what was returned.
  RunIndexDb db(dir.string());
  runs = db.list();
  EXPECT_EQ(runs[0].status, RunIndexStatus::Interrupted);

  // Resuming makes it running again under this process.
  const int64_t id = db.reopenRun("crashes", experimentHash("{}"), (dir / "crashed-run").string());
  EXPECT_EQ(id, runs[0].id);
  EXPECT_EQ(db.list()[0].status, RunIndexStatus::Running);
}

TEST_F(RunIndexTest, DamagedIndexIsReportedByName) {
  {
    std::ofstream junk(RunIndexDb::fileIn(dir.string()), std::ios::binary);
    junk << std::string(4096, 'x');
  }
  try {
    listRuns(dir.string());
    FAIL() << "expected an error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("runs.sqlite"), std::string::npos) << e.what();
  }
}

// RunRecord::status is RunIndexStatus; runs.sqlite holds its words, the same as before it was one.
TEST(RunIndexStatusWords, EveryStatusHasItsStoredWordAndBack) {
  const std::vector<std::pair<RunIndexStatus, std::string>> words = {
      {RunIndexStatus::Running, "running"},
      {RunIndexStatus::Finished, "finished"},
      {RunIndexStatus::Failed, "failed"},
      {RunIndexStatus::Interrupted, "interrupted"},
      {RunIndexStatus::Unknown, "unknown"}};
  ASSERT_EQ(allWords<RunIndexStatus>().size(), words.size()) << "a value was added: add it here";
  for (const auto& [status, word] : words) {
    EXPECT_EQ(wordString(status), word);
    EXPECT_EQ(indexStatusFromWord(word), status) << word;
  }
  // A word this engine does not know (a newer engine's) is Unknown, never an error.
  EXPECT_EQ(indexStatusFromWord("paused"), RunIndexStatus::Unknown);
  EXPECT_EQ(indexStatusFromWord(""), RunIndexStatus::Unknown);
  EXPECT_EQ(indexStatusFromWord("Finished"), RunIndexStatus::Unknown);
  // How a run ended, as the index keeps it: an early stop is a finished run.
  EXPECT_EQ(indexStatus(RunStatus::Completed), RunIndexStatus::Finished);
  EXPECT_EQ(indexStatus(RunStatus::EarlyStopped), RunIndexStatus::Finished);
  EXPECT_EQ(indexStatus(RunStatus::Interrupted), RunIndexStatus::Interrupted);
  EXPECT_EQ(indexStatus(RunStatus::Failed), RunIndexStatus::Failed);
}

// An index written before the status was an enum (or by a newer engine) reads: its words become the values,
// and a word this engine does not know reads as Unknown and stays in the file as it was.
TEST_F(RunIndexTest, StoredStatusWordsReadAsValuesAndAnUnknownOneIsKept) {
  RunIndexDb(dir.string()).registerRun("mine", experimentHash("{}"), (dir / "mine").string());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(RunIndexDb::fileIn(dir.string()).c_str(), &db), SQLITE_OK);
  const char* rows[][2] = {
      {"finished", "a"}, {"failed", "b"}, {"interrupted", "c"}, {"running", "d"}, {"paused", "e"}};
  for (const auto& row : rows) {
    // Another host's runs: this one cannot tell whether they still train, so a running one stays running.
    const std::string sql = std::string(
                                "INSERT INTO runs (name, experiment_hash, status, started_at, folder, "
                                "host, described) VALUES ('") +
                            row[1] + "', '0', '" + row[0] + "', '2026-01-01T00:00:00Z', '/elsewhere/" +
                            row[1] + "', 'another-host', 1)";
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  }
  std::map<std::string, RunIndexStatus> status;
  for (const RunRecord& r : listRuns(dir.string())) status[r.name] = r.status;
  EXPECT_EQ(status["a"], RunIndexStatus::Finished);
  EXPECT_EQ(status["b"], RunIndexStatus::Failed);
  EXPECT_EQ(status["c"], RunIndexStatus::Interrupted);
  EXPECT_EQ(status["d"], RunIndexStatus::Running);
  EXPECT_EQ(status["e"], RunIndexStatus::Unknown);
  EXPECT_EQ(status["mine"], RunIndexStatus::Running);
  EXPECT_EQ(findRun(dir.string(), "/elsewhere/e")->status, RunIndexStatus::Unknown);
  sqlite3_stmt* select = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT status FROM runs WHERE name = 'e'", -1, &select, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(select), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(select, 0))), "paused")
      << "listing never writes a word over one it does not know";
  sqlite3_finalize(select);
  sqlite3_close(db);
}

TEST(ExperimentHash, IsStableAndDistinguishes) {
  EXPECT_EQ(experimentHash("{\"a\":1}"), experimentHash("{\"a\":1}"));
  EXPECT_NE(experimentHash("{\"a\":1}"), experimentHash("{\"a\":2}"));
  EXPECT_EQ(experimentHash(""), "cbf29ce484222325");  // FNV-1a 64 offset basis
}

}  // namespace
}  // namespace wb
