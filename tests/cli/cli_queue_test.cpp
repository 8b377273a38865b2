// `workbench-cli queue`, end to end with the binary: entries checked when added; two workers on one queue
// train every entry once, a failing entry is marked failed with its reason and the queue goes on; a worker
// killed mid-run (kill -9, with its trial's process) leaves the entry to the next worker, which resumes the
// same run.

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cli/cli_runner.h"
#include "support/tiny_experiment.h"
#include "workbench/run_index.h"
#include "workbench/run_queue.h"

namespace {

namespace fs = std::filesystem;
using wb::test::readFile;
using wb::test::runCli;
using wb::test::startCli;
using wb::test::tempDir;

bool queueSaid(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string writeQueueExperiment(const std::string& dir) {
  const std::string file = dir + "/tiny.json";
  std::ofstream(file) << wb::test::tinySyntheticExperiment(dir + "/runs").dump(2);
  return file;
}

int waitForQueueProcess(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(CliQueue, TwoWorkersTrainEveryEntryOnceAndAFailureDoesNotStopTheQueue) {
  const std::string dir = tempDir("queue-two");
  const std::string runs = dir + "/runs";
  const std::string tiny = writeQueueExperiment(dir);
  for (int i = 0; i < 4; ++i) {
    const auto added =
        runCli("queue add " + tiny + " --set seed=" + std::to_string(i) + " --label t" + std::to_string(i));
    ASSERT_EQ(added.status, 0) << added.err;
    EXPECT_TRUE(queueSaid(added.out, "Queued")) << added.out;
  }
  const auto overflow = runCli("queue add " + tiny + " --set optimizer.lr=1e30 --label overflow");
  ASSERT_EQ(overflow.status, 0) << overflow.err;
  // A bad experiment is refused when added, naming the key, and nothing is queued.
  const auto bad = runCli("queue add " + tiny + " --set optimizer.nme=sgd");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(queueSaid(bad.err, "optimizer.nme")) << bad.err;
  const auto held = runCli("queue add " + tiny + " --label later --hold");
  ASSERT_EQ(held.status, 0) << held.err;
  ASSERT_EQ(wb::listQueue(runs).size(), 6u);

  const pid_t first = startCli("queue run --until-empty --runs-dir " + runs, dir + "/worker1.log");
  const pid_t second = startCli("queue run --until-empty --runs-dir " + runs, dir + "/worker2.log");
  EXPECT_EQ(waitForQueueProcess(first), 0) << readFile(dir + "/worker1.log");
  EXPECT_EQ(waitForQueueProcess(second), 0) << readFile(dir + "/worker2.log");
  EXPECT_TRUE(queueSaid(readFile(dir + "/worker1.log"), "Queue finished")) << readFile(dir + "/worker1.log");

  std::set<std::string> folders;
  for (const wb::QueueEntry& e : wb::listQueue(runs)) {
    if (e.label == "later") {
      EXPECT_EQ(e.state, wb::QueueState::Held) << "a held entry waits";
      continue;
    }
    EXPECT_EQ(e.attempts, 1) << e.label << " was trained more than once";
    EXPECT_FALSE(e.run_folder.empty()) << e.label;
    folders.insert(e.run_folder);
    if (e.label == "overflow") {
      EXPECT_EQ(e.state, wb::QueueState::Failed);
      EXPECT_TRUE(queueSaid(e.message, "loss")) << e.message;
    } else {
      EXPECT_EQ(e.state, wb::QueueState::Done) << e.label << ": " << e.message;
      EXPECT_TRUE(fs::exists(e.run_folder + "/summary.json")) << e.run_folder;
    }
  }
  EXPECT_EQ(folders.size(), 5u) << "one run folder per entry";
  EXPECT_EQ(wb::listRuns(runs).size(), 5u) << "each entry is a normal run in the index";

  const auto list = runCli("queue list --runs-dir " + runs);
  EXPECT_EQ(list.status, 0);
  EXPECT_TRUE(queueSaid(list.out, "overflow")) << list.out;
  EXPECT_TRUE(queueSaid(list.out, "failed")) << list.out;
  const auto json = nlohmann::json::parse(runCli("queue list --json --runs-dir " + runs).out);
  EXPECT_EQ(json.size(), 6u);
  const int64_t later = json.back()["id"];
  EXPECT_EQ(runCli("queue remove " + std::to_string(later) + " --runs-dir " + runs).status, 0);
  EXPECT_EQ(wb::listQueue(runs).size(), 5u);
  fs::remove_all(dir);
}

// `--devices cpu,cpu`: one worker trains two entries at once, each pinned to its half of the cores, its
// threads sized to them; a device it does not know is refused before anything runs.
TEST(CliQueue, TwoCpuSlotsTrainTwoEntriesAtOnceEachOnItsShareOfTheCores) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(::sched_getaffinity(0, sizeof(set), &set), 0);
  const int cores = CPU_COUNT(&set);
  if (cores < 2) GTEST_SKIP() << "two CPU slots need two cores; this machine lets the tests use " << cores;
  const std::string dir = tempDir("queue-slots");
  const std::string runs = dir + "/runs";
  const std::string file = dir + "/tiny.json";
  nlohmann::json experiment = wb::test::tinySyntheticExperiment(runs);
  experiment["train"].erase("threads");  // the process sizes its threads by the cores it may use
  std::ofstream(file) << experiment.dump(2);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(
        runCli("queue add " + file + " --set seed=" + std::to_string(i) + " --label s" + std::to_string(i))
            .status,
        0);
  }
  const auto refused = runCli("queue run --until-empty --devices cpu,gpu0 --runs-dir " + runs);
  EXPECT_EQ(refused.status, 2);
  EXPECT_TRUE(queueSaid(refused.err, "'gpu0' is not a device")) << refused.err;
  EXPECT_EQ(wb::listQueue(runs).front().state, wb::QueueState::Queued) << "nothing ran";

  const auto worked = runCli("queue run --until-empty --devices cpu,cpu --runs-dir " + runs);
  ASSERT_EQ(worked.status, 0) << worked.out << worked.err;
  EXPECT_TRUE(queueSaid(worked.out, "3 done, 0 failed")) << worked.out;
  // Both slots started before either entry ended.
  const size_t first_end = worked.out.find("): done");
  EXPECT_NE(worked.out.find("(s0, cpu cores"), std::string::npos) << worked.out;
  EXPECT_LT(worked.out.find("(s1, cpu cores"), first_end) << worked.out;
  const std::vector<wb::RunRecord> listed = wb::listRuns(runs);
  ASSERT_EQ(listed.size(), 3u);
  for (const wb::RunRecord& r : listed) {
    const std::string log = readFile(r.folder + "/metrics.jsonl");
    // "threads: intra-op 1, BLAS 1" (OpenBLAS) or "threads: intra-op 1;" (MKL)
    bool sized = false;
    for (const int share : {cores / 2, cores - cores / 2}) {
      for (const char* after : {",", ";"})
        sized = sized || queueSaid(log, "threads: intra-op " + std::to_string(share) + after);
    }
    EXPECT_TRUE(sized) << r.folder << ": its threads follow its share of the " << cores << " cores";
  }
  // A GPU slot gives an entry one device: an experiment for several (here two CPU ranks) is refused, saying
  // so. (Added straight to the index: `queue add` would first check that this build can train two CPU ranks.)
  nlohmann::json pair_experiment = experiment;
  pair_experiment["train"]["devices"] = {"cpu", "cpu"};
  wb::QueueAddition pair_addition;
  pair_addition.experiment = pair_experiment.dump();
  pair_addition.label = "pair";
  pair_addition.cwd = dir;
  wb::addToQueue(runs, pair_addition);
  const auto paired = runCli("queue run --until-empty --devices cuda:0 --runs-dir " + runs);
  EXPECT_EQ(paired.status, 0) << paired.out << paired.err;
  const wb::QueueEntry pair = wb::listQueue(runs).back();
  EXPECT_EQ(pair.state, wb::QueueState::Failed);
  EXPECT_TRUE(
      queueSaid(pair.message, "it trains on 2 devices, and a worker's GPU slot gives it one (cuda:0)"))
      << pair.message;
  fs::remove_all(dir);
}

TEST(CliQueue, AnEntryWhoseFolderIsGoneFailsSayingSoAndTheNextRuns) {
  const std::string dir = tempDir("queue-cwd");
  const std::string runs = dir + "/runs";
  const std::string tiny = writeQueueExperiment(dir);
  fs::create_directories(dir + "/gone");
  ASSERT_EQ(wb::test::runCliAfter("cd " + dir + "/gone &&", "queue add " + tiny + " --label orphan").status,
            0);
  ASSERT_EQ(runCli("queue add " + tiny + " --label next").status, 0);
  fs::remove_all(dir + "/gone");
  const auto worked = runCli("queue run --until-empty --runs-dir " + runs);
  EXPECT_EQ(worked.status, 0) << worked.err;
  const std::vector<wb::QueueEntry> entries = wb::listQueue(runs);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].state, wb::QueueState::Failed);
  EXPECT_TRUE(queueSaid(entries[0].message, dir + "/gone")) << entries[0].message;
  EXPECT_EQ(entries[1].state, wb::QueueState::Done) << entries[1].message;
  EXPECT_TRUE(queueSaid(worked.out, "1 done, 1 failed")) << worked.out;
  fs::remove_all(dir);
}

// 1350 training samples / 50 = 27 steps an epoch, 54 in all, a checkpoint every 5 steps: the CNN, so that the
// run is still training when the worker is killed.
TEST(CliQueue, AKilledWorkersEntryIsResumedByTheNextWorker) {
  // Orphaned by the worker's death, its trial's process is reparented here, so that it can be reaped.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  const std::string dir = tempDir("queue-kill");
  const std::string runs = dir + "/runs";
  const auto added = runCli(
      "queue add --set data.limit=1500 --set data.val_fraction=0.1 --set model.preset=cnn --set "
      "train.epochs=2 "
      "--set train.batch_size=50 --set train.checkpoint_every_steps=5 --set train.checkpoint_every_minutes=0 "
      "--set output.runs_dir=" +
      runs + " --label killed");
  ASSERT_EQ(added.status, 0) << added.err;
  const pid_t worker = startCli("queue run --until-empty --runs-dir " + runs, dir + "/worker1.log");
  std::string folder;
  bool checkpointed = false;
  for (int i = 0; i < 6000 && !checkpointed; ++i) {  // 60 s
    folder = wb::test::onlyRunFolder(runs);
    checkpointed = !folder.empty() && queueSaid(readFile(folder + "/train.log"), " at step 5:");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(checkpointed) << readFile(dir + "/worker1.log");
  const std::vector<wb::QueueEntry> running = wb::listQueue(runs);
  ASSERT_EQ(running.size(), 1u);
  ASSERT_EQ(running[0].state, wb::QueueState::Running);
  const pid_t trial = static_cast<pid_t>(running[0].owner_pid);
  ASSERT_NE(trial, worker) << "the trial trains in a process of its own";
  ::kill(trial, SIGKILL);
  ::kill(worker, SIGKILL);
  waitForQueueProcess(worker);
  waitForQueueProcess(trial);  // ours to reap now (subreaper)

  // Seen through the binary (not this test's own copy of the engine): back in the queue, with its run.
  const auto orphaned = nlohmann::json::parse(runCli("queue list --json --runs-dir " + runs).out);
  ASSERT_EQ(orphaned.size(), 1u);
  EXPECT_EQ(orphaned[0]["state"], "queued") << orphaned.dump(2);
  EXPECT_EQ(orphaned[0]["run_folder"], folder);
  EXPECT_TRUE(queueSaid(orphaned[0]["message"], "resumes from its checkpoint")) << orphaned.dump(2);
  const auto again = runCli("queue run --until-empty --runs-dir " + runs);
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_TRUE(queueSaid(again.out, "resuming " + folder)) << again.out;
  const wb::QueueEntry done = wb::listQueue(runs)[0];
  EXPECT_EQ(done.state, wb::QueueState::Done) << done.message;
  EXPECT_EQ(done.attempts, 2);
  EXPECT_EQ(done.run_folder, folder) << "the same run, resumed";
  const std::vector<wb::RunRecord> records = wb::listRuns(runs);
  ASSERT_EQ(records.size(), 1u) << "no second run folder";
  EXPECT_EQ(records[0].status, wb::RunIndexStatus::Finished);
  EXPECT_EQ(records[0].steps, 54);
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  fs::remove_all(dir);
}

}  // namespace
