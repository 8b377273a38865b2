// A run's name, tags and notes (run.json, mirrored in the index), its deletion, and runs named after their
// experiment when the user gave no name.

#include "workbench/run_info.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "runs/run_index_db.h"
#include "support/temporary_folder.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/run_index.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

class RunInfoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = test::folderForThisTest(
        "run-info-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  }

  // A run folder as the engine leaves it, with a summary when `status` is given.
  fs::path makeFolder(const std::string& name, const Experiment& e, std::optional<RunStatus> status) {
    const fs::path folder = dir / name;
    fs::create_directories(folder);
    std::ofstream(folder / "experiment.json") << experimentToJson(e).dump(2);
    if (status) {
      RunSummary s;
      s.status = *status;
      s.steps = 300;
      s.epochs = 2;
      s.test_accuracy = 0.81;
      s.wall_s = 42.5;
      std::ofstream(folder / "summary.json") << summaryToJson(s).dump();
    }
    return folder;
  }

  fs::path dir;
};

TEST(RunNaming, UnnamedExperimentsAreNamedAfterModelAndData) {
  Experiment e;
  EXPECT_EQ(experimentRunName(e), "cnn-fashion-mnist");
  EXPECT_EQ(numberedRunName(e, 7), "cnn-fashion-mnist-0007");
  e.model.preset = "mlp";
  e.data.dataset = DatasetName::Cifar10;
  EXPECT_EQ(numberedRunName(e, 12345), "mlp-cifar10-12345");
  e.model.preset = "";
  e.model.layers = nlohmann::json::array();
  EXPECT_EQ(experimentRunName(e), "layers-cifar10");
  e.model.torchscript = "net.pt";
  EXPECT_EQ(experimentRunName(e), "torchscript-cifar10");
  // A name the user wrote is kept as written, not numbered.
  e.name = "my-baseline";
  EXPECT_EQ(experimentRunName(e), "my-baseline");
  EXPECT_EQ(numberedRunName(e, 7), "my-baseline");
}

TEST(RunNaming, TagsAreSplitTrimmedAndDeduplicated) {
  EXPECT_EQ(parseTags(" baseline, lr-sweep,,baseline ,  "),
            (std::vector<std::string>{"baseline", "lr-sweep"}));
  EXPECT_TRUE(parseTags("").empty());
}

TEST_F(RunInfoTest, RunJsonRoundTripsAndIsWrittenAtomically) {
  EXPECT_FALSE(readRunInfo(dir.string()));
  writeRunInfo(dir.string(),
               RunInfo{" best so far ", {"baseline", " a ", "baseline", ""}, "lr 3e-4\nno aug"});
  const std::optional<RunInfo> info = readRunInfo(dir.string());
  ASSERT_TRUE(info);
  EXPECT_EQ(info->name, "best so far");
  EXPECT_EQ(info->tags, (std::vector<std::string>{"baseline", "a"}));
  EXPECT_EQ(info->notes, "lr 3e-4\nno aug");
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().filename(), "run.json") << "a temporary file was left: " << entry.path();
  }
  std::ofstream(dir / "run.json") << "{ damaged";
  EXPECT_FALSE(readRunInfo(dir.string()));
}

TEST_F(RunInfoTest, RenameTagsAndNotesPersistInFolderAndIndex) {
  Experiment e;
  e.model.preset = "mlp";
  e.optimizer.lr = 3e-4;
  e.train.batch_size = 64;
  e.train.amp = Precision::Bf16;
  e.train.devices = {"cpu", "cpu"};
  const fs::path folder = makeFolder("20261203-100000-mlp-fashion-mnist", e, RunStatus::Completed);
  const RunRecord added = addRunFolder(dir.string(), folder.string());
  EXPECT_EQ(added.name, "mlp-fashion-mnist-" + std::string(4 - std::to_string(added.id).size(), '0') +
                            std::to_string(added.id));
  EXPECT_EQ(added.status, RunIndexStatus::Finished);
  EXPECT_EQ(added.model, "mlp");
  EXPECT_EQ(added.dataset, "fashion-mnist");
  EXPECT_EQ(added.optimizer, "adamw");
  EXPECT_DOUBLE_EQ(added.lr, 3e-4);
  EXPECT_EQ(added.batch_size, 64);
  EXPECT_EQ(added.amp, "bf16");
  EXPECT_EQ(added.devices, "cpu, cpu");
  EXPECT_DOUBLE_EQ(added.wall_s, 42.5);
  EXPECT_DOUBLE_EQ(added.test_accuracy, 0.81);
  // Adding it again finds the same run.
  EXPECT_EQ(addRunFolder(dir.string(), folder.string()).id, added.id);

  updateRunInfo(dir.string(), folder.string(), RunInfo{"wide mlp", {"baseline", "bf16"}, "first try"});
  const RunRecord listed = listRuns(dir.string()).front();
  EXPECT_EQ(listed.name, "wide mlp");
  EXPECT_EQ(listed.tags, (std::vector<std::string>{"baseline", "bf16"}));
  EXPECT_EQ(listed.notes, "first try");
  EXPECT_EQ(listed.folder, folder.string());  // renaming leaves the folder where it is
  EXPECT_TRUE(fs::exists(folder / "experiment.json"));
  const std::optional<RunInfo> info = readRunInfo(folder.string());
  ASSERT_TRUE(info);
  EXPECT_EQ(info->name, "wide mlp");
  EXPECT_EQ(info->tags, listed.tags);

  EXPECT_THROW(updateRunInfo(dir.string(), folder.string(), RunInfo{"  ", {}, ""}), UserError);
  EXPECT_THROW(updateRunInfo(dir.string(), (dir / "not-indexed").string(), RunInfo{"x", {}, ""}), UserError);

  // The index deleted: the run added again keeps what the user said (run.json travels with the folder).
  fs::remove(dir / "runs.sqlite");
  fs::remove(dir / "runs.sqlite-wal");
  fs::remove(dir / "runs.sqlite-shm");
  const RunRecord again = addRunFolder(dir.string(), folder.string());
  EXPECT_EQ(again.name, "wide mlp");
  EXPECT_EQ(again.tags, (std::vector<std::string>{"baseline", "bf16"}));
}

TEST_F(RunInfoTest, DeleteRemovesTheFolderAndRefusesARunningRun) {
  const fs::path done = makeFolder("20261203-100000-done", Experiment{}, RunStatus::Completed);
  addRunFolder(dir.string(), done.string());
  std::ofstream(done / "metrics.jsonl") << "{}\n";
  fs::create_directories(done / "checkpoints");
  std::ofstream(done / "checkpoints" / "step-100.pt") << "x";

  const fs::path live = dir / "20261203-110000-live";
  fs::create_directories(live);
  std::ofstream(live / "experiment.json") << experimentToJson(Experiment{}).dump();
  {
    RunIndexDb db(dir.string());
    db.registerRun("live", experimentHash("{}"), live.string());  // this process: alive, so running
  }
  ASSERT_EQ(listRuns(dir.string()).size(), 2u);

  try {
    deleteRun(dir.string(), live.string());
    FAIL() << "a running run was deleted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("is training"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(live / "experiment.json"));

  deleteRun(dir.string(), done.string());
  EXPECT_FALSE(fs::exists(done));
  const std::vector<RunRecord> left = listRuns(dir.string());
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left.front().folder, live.string());
  EXPECT_THROW(deleteRun(dir.string(), done.string()), UserError);  // gone from the index too
}

// An index written before the describing columns existed gets them when opened; its runs are described from
// their folders the first time they are listed.
TEST_F(RunInfoTest, AnOlderIndexIsUpgradedAndItsRunsDescribed) {
  Experiment e;
  e.name = "old-run";
  e.model.preset = "resnet";
  const fs::path folder = makeFolder("20261101-090000-old-run", e, RunStatus::Completed);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "runs.sqlite").c_str(), &db), SQLITE_OK);
  const std::string sql =
      "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, experiment_hash TEXT NOT "
      "NULL,"
      " status TEXT NOT NULL, started_at TEXT NOT NULL, ended_at TEXT NOT NULL DEFAULT '', folder TEXT NOT "
      "NULL "
      "UNIQUE, steps INTEGER NOT NULL DEFAULT 0, epochs INTEGER NOT NULL DEFAULT 0, best_val_loss REAL NOT "
      "NULL "
      "DEFAULT -1, best_val_accuracy REAL NOT NULL DEFAULT -1, test_loss REAL NOT NULL DEFAULT -1, "
      "test_accuracy "
      "REAL NOT NULL DEFAULT -1, pid INTEGER NOT NULL DEFAULT 0, host TEXT NOT NULL DEFAULT '', pid_start "
      "INTEGER "
      "NOT NULL DEFAULT 0);"
      "INSERT INTO runs (name, experiment_hash, status, started_at, ended_at, folder) VALUES ('old-run', "
      "'x', "
      "'finished', '2026-11-01T09:00:00Z', '2026-11-01T09:10:00Z', '" +
      folder.string() + "');";
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);

  const std::vector<RunRecord> runs = listRuns(dir.string());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, "old-run");
  EXPECT_EQ(runs[0].model, "resnet");
  EXPECT_EQ(runs[0].batch_size, 128);
  EXPECT_DOUBLE_EQ(runs[0].wall_s, 42.5);
  EXPECT_TRUE(runs[0].tags.empty());
  // Written back: a second listing reads the columns, not the folder.
  fs::remove(folder / "experiment.json");
  EXPECT_EQ(listRuns(dir.string())[0].model, "resnet");
}

}  // namespace
}  // namespace wb
