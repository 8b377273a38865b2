// Running out of space, end to end with the binary: a run whose checkpoint cannot be written ends with an
// error that names the file, its size and the cause (a full disk says so), exit status 2, no temporary file
// left; after space is freed, `resume` continues from the last good checkpoint. A temporary file left by a
// kill during a write is removed at the resume and never taken for a checkpoint.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "backend/util/small_disk.h"
#include "cli/cli_runner.h"

namespace {

namespace fs = std::filesystem;
using wb::test::readFile;
using wb::test::runCliAfter;
using wb::test::tempDir;

// ~15 steps an epoch (batch 128), a 2.7 MiB checkpoint.
std::string diskFullArgs(const std::string& runs) {
  return "--set model.preset=mlp --set data.limit=2000 --set train.epochs=2 --set "
         "train.checkpoint_every_minutes=0 "
         "--set output.runs_dir=" +
         runs;
}

std::vector<std::string> namesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool hasTempFile(const std::string& dir) {
  for (const std::string& name : namesIn(dir)) {
    if (name.find(".tmp.") != std::string::npos) return true;
  }
  return false;
}

// The step of the last "Continuing at step K" in train.log, or -1.
int64_t continuedAt(const std::string& run_dir) {
  const std::string log = readFile(run_dir + "/train.log");
  const std::regex continuing("Continuing at step ([0-9]+)");
  int64_t step = -1;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), continuing); it != std::sregex_iterator();
       ++it) {
    step = std::stoll((*it)[1]);
  }
  return step;
}

TEST(CliDiskFull, FileSizeLimitEndsTheRunWithAClearErrorAndResumeCleansUp) {
  const std::string runs = tempDir("disk-limit");
  // 1 MiB (sh counts 512-byte blocks): the logs fit, a 2.7 MiB checkpoint does not. The CLI ignores SIGXFSZ
  // itself, so the write returns EFBIG instead of the process being killed.
  const auto failed = runCliAfter(
      "ulimit -f 2048;", "train " + diskFullArgs(runs) + " --set train.checkpoint_every_steps=5 --quiet");
  EXPECT_EQ(failed.status, 2) << failed.err;
  const std::string dir = wb::test::onlyRunFolder(runs);
  ASSERT_FALSE(dir.empty());
  EXPECT_NE(failed.err.find("The checkpoint of step 5 was not saved. Could not write " + dir +
                            "/checkpoints/step-000000000005.wbckpt (2.7 MiB)"),
            std::string::npos)
      << failed.err;
  EXPECT_NE(failed.err.find("File too large"), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("ulimit -f unlimited"), std::string::npos) << failed.err;
  EXPECT_EQ(nlohmann::json::parse(readFile(dir + "/summary.json"))["status"], "failed");
  EXPECT_TRUE(namesIn(dir + "/checkpoints").empty());

  // A kill during a write: its temporary files (a checkpoint's, summary.json's) left behind.
  const std::string ckpt_tmp = dir + "/checkpoints/step-000000000010.wbckpt.tmp." + wb::test::kDeadPid;
  const std::string summary_tmp = dir + "/summary.json.tmp." + wb::test::kDeadPid;
  std::ofstream(ckpt_tmp) << "WBCKPT01 half a checkpoint";
  std::ofstream(summary_tmp) << "{";
  const auto resumed = runCliAfter("", "resume " + dir + " --json --quiet");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_EQ(nlohmann::json::parse(resumed.out)["status"], "completed");
  EXPECT_NE(readFile(dir + "/train.log").find("it has no usable checkpoint"), std::string::npos);
  EXPECT_FALSE(fs::exists(ckpt_tmp));
  EXPECT_FALSE(fs::exists(summary_tmp));
  EXPECT_FALSE(hasTempFile(dir));
  EXPECT_FALSE(hasTempFile(dir + "/checkpoints"));
  fs::remove_all(runs);
}

TEST(CliDiskFull, FullDiskEndsTheRunAndResumeAfterFreeingSpaceContinuesFromTheLastGoodCheckpoint) {
  // 66 MiB: a run needs 64 MiB free to start; every step's checkpoint (2.7 MiB) is kept, so the disk fills up
  // after about 23 of the 30 steps.
  const auto disk = wb::test::SmallDisk::mount(tempDir("disk-tmpfs"), 66 * 1024);
  if (!disk)
    GTEST_SKIP() << "cannot mount a tmpfs here (not root?); the file size limit test covers the checks";
  const std::string runs = disk->dir();
  const auto failed =
      runCliAfter("", "train " + diskFullArgs(runs) +
                          " --set train.checkpoint_every_steps=1 --set train.keep_checkpoints=1000 --quiet");
  EXPECT_EQ(failed.status, 2) << failed.err;
  const std::string dir = wb::test::onlyRunFolder(runs);
  ASSERT_FALSE(dir.empty());
  EXPECT_NE(failed.err.find("The disk holding " + dir + "/checkpoints is full: could not write " + dir +
                            "/checkpoints/step-"),
            std::string::npos)
      << failed.err;
  EXPECT_NE(failed.err.find("(2.7 MiB): No space left on device"), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("Free some space on the disk holding the run folder"), std::string::npos)
      << failed.err;
  const std::vector<std::string> kept = namesIn(dir + "/checkpoints");
  ASSERT_FALSE(kept.empty());
  EXPECT_FALSE(hasTempFile(dir + "/checkpoints"));
  const int64_t last_good = std::stoll(kept.back().substr(5, 12));
  EXPECT_NE(failed.err.find("the latest checkpoint is still " + kept.back()), std::string::npos)
      << failed.err;
  EXPECT_GT(last_good, 0);
  EXPECT_LT(last_good, 30);

  ASSERT_TRUE(disk->resize(512 * 1024));  // space freed
  const auto resumed = runCliAfter("", "resume " + dir + " --json --quiet");
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  const auto summary = nlohmann::json::parse(resumed.out);
  EXPECT_EQ(summary["status"], "completed");
  EXPECT_EQ(summary["steps"], 30);
  EXPECT_EQ(continuedAt(dir), last_good);
}

}  // namespace
