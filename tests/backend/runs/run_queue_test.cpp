// The run queue in the index: order, hold/release, move, remove; claims that never hand one entry to two
// processes (four forked processes racing over one queue); an entry whose process died goes back to the queue
// with the run it started, so that the next worker resumes it.

#include "workbench/run_queue.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runs/run_index_db.h"
#include "support/temporary_folder.h"
#include "workbench/errors.h"
#include "workbench/sweep_runs.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

class RunQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::folderForThisTest(
              "run-queue-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())) +
          "/queue";
  }
  int64_t add(const std::string& label, bool held = false) {
    QueueAddition addition;
    addition.experiment = "{\"name\": \"" + label + "\"}";
    addition.label = label;
    addition.cwd = "/tmp";
    addition.held = held;
    return addToQueue(dir, addition);
  }
  std::vector<std::string> order() {
    std::vector<std::string> labels;
    for (const QueueEntry& e : listQueue(dir)) labels.push_back(e.label + ":" + wordString(e.state));
    return labels;
  }
  std::string dir;
};

TEST_F(RunQueueTest, AbsentQueueIsEmptyAndClaimsNothing) {
  EXPECT_TRUE(listQueue(dir).empty());
  EXPECT_FALSE(claimFromQueue(dir, ::getpid()));
  EXPECT_FALSE(fs::exists(dir)) << "reading an absent queue creates nothing";
}

TEST_F(RunQueueTest, EntriesKeepTheirOrderHoldMoveAndRemove) {
  const int64_t a = add("a"), b = add("b"), c = add("c", /*held=*/true);
  EXPECT_EQ(order(), (std::vector<std::string>{"a:queued", "b:queued", "c:held"}));
  const QueueEntry first = *findQueueEntry(dir, a);
  EXPECT_EQ(first.experiment, "{\"name\": \"a\"}");
  EXPECT_EQ(first.cwd, "/tmp");
  EXPECT_FALSE(first.added_at.empty());

  moveInQueue(dir, c, a);  // c before a
  holdInQueue(dir, c, false);
  holdInQueue(dir, a, true);
  EXPECT_EQ(order(), (std::vector<std::string>{"c:queued", "a:held", "b:queued"}));
  moveInQueue(dir, c, 0);  // to the end
  EXPECT_EQ(order(), (std::vector<std::string>{"a:held", "b:queued", "c:queued"}));

  // Claims skip held entries and go in order.
  const std::optional<QueueEntry> claimed = claimFromQueue(dir, ::getpid());
  ASSERT_TRUE(claimed);
  EXPECT_EQ(claimed->id, b);
  EXPECT_EQ(claimed->state, QueueState::Running);
  EXPECT_EQ(claimed->attempts, 1);
  EXPECT_EQ(claimed->owner_pid, ::getpid());
  EXPECT_THROW(removeFromQueue(dir, b), UserError) << "a running entry is not removed";
  EXPECT_THROW(holdInQueue(dir, b, true), UserError) << "nor held";
  endQueueEntry(dir, b, QueueState::Failed, "/runs/b-0001", "loss became NaN at step 3");
  const QueueEntry failed = *findQueueEntry(dir, b);
  EXPECT_EQ(failed.state, QueueState::Failed);
  EXPECT_EQ(failed.run_folder, "/runs/b-0001");
  EXPECT_EQ(failed.message, "loss became NaN at step 3");
  EXPECT_FALSE(failed.ended_at.empty());
  holdInQueue(dir, b, false);  // a failed entry released is queued again
  EXPECT_EQ(findQueueEntry(dir, b)->state, QueueState::Queued);

  removeFromQueue(dir, a);
  EXPECT_EQ(order(), (std::vector<std::string>{"b:queued", "c:queued"}));
  EXPECT_THROW(removeFromQueue(dir, a), UserError) << "an absent entry is named";
  EXPECT_THROW(ownQueueEntry(dir, c, ::getpid()), UserError) << "only a claimed entry is trained";
}

TEST_F(RunQueueTest, FourProcessesNeverClaimOneEntryTwice) {
  constexpr int kEntries = 120, kProcesses = 4;
  for (int i = 0; i < kEntries; ++i) add("e" + std::to_string(i));
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        while (const std::optional<QueueEntry> entry = claimFromQueue(dir, ::getpid())) {
          endQueueEntry(dir, entry->id, QueueState::Done, "", "by " + std::to_string(::getpid()));
        }
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    children.push_back(pid);
  }
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a claiming process failed";
  }
  std::map<std::string, int> by_process;
  const std::vector<QueueEntry> entries = listQueue(dir);
  ASSERT_EQ(entries.size(), static_cast<size_t>(kEntries));
  for (const QueueEntry& e : entries) {
    EXPECT_EQ(e.state, QueueState::Done) << e.label;
    EXPECT_EQ(e.attempts, 1) << e.label << " was claimed more than once";
    ++by_process[e.message];
  }
  EXPECT_GE(by_process.size(), 2u) << "the processes did race";
}

// QueueEntry::state is QueueState; the queue table holds its words, the same as before it was one.
TEST(QueueStateWords, EveryStateHasItsStoredWordAndBack) {
  const std::vector<std::pair<QueueState, std::string>> words = {
      {QueueState::Queued, "queued"}, {QueueState::Held, "held"},     {QueueState::Running, "running"},
      {QueueState::Done, "done"},     {QueueState::Failed, "failed"}, {QueueState::Unknown, "unknown"}};
  ASSERT_EQ(allWords<QueueState>().size(), words.size()) << "a value was added: add it here";
  for (const auto& [state, word] : words) {
    EXPECT_EQ(wordString(state), word);
    EXPECT_EQ(fromWord<QueueState>(word), state) << word;
  }
  // A sweep's trial shows its entry's state, or stopped (sweep_runs.h).
  EXPECT_EQ(allWords<TrialStatus>(),
            (std::vector<std::string>{"queued", "held", "running", "done", "stopped", "failed", "unknown"}));
  for (const auto& [state, word] : words) EXPECT_EQ(wordString(trialStatus(state)), word);
}

// A queue written before the states were an enum (or by a newer engine) reads: its words become the values;
// a state this engine does not know reads as Unknown, no worker takes it, and its word stays as it was. The
// sweep metric is read the same way: none for an entry of no sweep, or for a metric word it does not know.
TEST_F(RunQueueTest, StoredStateWordsReadAsValuesAndAnUnknownOneIsLeftAlone) {
  const std::vector<std::string> stored = {"queued", "held", "running", "done", "failed", "paused"};
  std::vector<int64_t> ids;
  for (const std::string& word : stored) ids.push_back(add(word));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(RunIndexDb::fileIn(dir).c_str(), &db), SQLITE_OK);
  auto exec = [db](const std::string& sql) {
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sql;
  };
  for (size_t i = 0; i < stored.size(); ++i) {
    exec("UPDATE queue SET state = '" + stored[i] +
         "', owner_host = 'another-host' WHERE id = " + std::to_string(ids[i]));
  }
  exec("UPDATE queue SET sweep = 's', sweep_metric = 'test_loss' WHERE id = " + std::to_string(ids[0]));
  exec("UPDATE queue SET sweep = 's', sweep_metric = 'f1_score' WHERE id = " + std::to_string(ids[1]));
  exec("DELETE FROM queue WHERE state = 'queued'");  // only the unknown one could be claimed now
  const std::vector<QueueEntry> entries = listQueue(dir);
  ASSERT_EQ(entries.size(), 5u);
  EXPECT_EQ(entries[0].state, QueueState::Held);
  EXPECT_EQ(entries[1].state, QueueState::Running) << "another host's: left as it is";
  EXPECT_EQ(entries[2].state, QueueState::Done);
  EXPECT_EQ(entries[3].state, QueueState::Failed);
  EXPECT_EQ(entries[4].state, QueueState::Unknown);
  EXPECT_EQ(entries[0].sweep_metric, std::nullopt) << "a metric word it does not know";
  EXPECT_EQ(entries[2].sweep_metric, std::nullopt) << "no sweep";
  EXPECT_FALSE(claimFromQueue(dir, ::getpid())) << "an entry in a state it does not know is not taken";
  sqlite3_stmt* select = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, ("SELECT state FROM queue WHERE id = " + std::to_string(ids[5])).c_str(),
                               -1, &select, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(select), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(sqlite3_column_text(select, 0))), "paused");
  sqlite3_finalize(select);
  sqlite3_close(db);

  QueueAddition trial;
  trial.experiment = "{}";
  trial.label = "trial";
  trial.sweep = "s2";
  trial.sweep_metric = SweepMetric::TestLoss;
  const int64_t id = addToQueue(dir, trial);
  EXPECT_EQ(findQueueEntry(dir, id)->sweep_metric, SweepMetric::TestLoss);
  EXPECT_EQ(findQueueEntry(dir, id)->state, QueueState::Queued);
}

TEST_F(RunQueueTest, AnEntryWhoseProcessDiedIsQueuedAgainWithItsRun) {
  const int64_t id = add("killed");
  const std::string folder = dir + "/20261205-100000-killed";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // A worker's trial: claims, starts its run (the index lists it under this pid), and dies mid-run.
    const std::optional<QueueEntry> entry = claimFromQueue(dir, ::getpid());
    RunIndexDb(dir).registerRun("killed", experimentHash("{}"), folder);
    ::_exit(entry ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const QueueEntry after = *findQueueEntry(dir, id);
  EXPECT_EQ(after.state, QueueState::Running) << "found as it was left";
  const std::vector<QueueEntry> listed = listQueue(dir);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].state, QueueState::Queued);
  EXPECT_EQ(listed[0].run_folder, folder) << "the run it started, from the runs table";
  EXPECT_NE(listed[0].message.find("resumes from its checkpoint"), std::string::npos) << listed[0].message;
  const std::optional<QueueEntry> again = claimFromQueue(dir, ::getpid());
  ASSERT_TRUE(again);
  EXPECT_EQ(again->attempts, 2);
  EXPECT_EQ(again->run_folder, folder);
  EXPECT_EQ(runFolderOfProcess(dir, pid), folder);
  // A live owner keeps its entry.
  EXPECT_EQ(listQueue(dir)[0].state, QueueState::Running);
}

}  // namespace
}  // namespace wb
