// Checkpoints on a disk that fills up: the failed write leaves the previous checkpoint the latest and
// loadable, no temporary file, and an error that says what happened. A kill during a write (its temporary
// file left behind) is cleaned up at the next start or resume and never taken for a checkpoint.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "backend/util/small_disk.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/run_folder.h"
#include "support/test_experiments.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> tempFilesIn(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) found.push_back(entry.path());
  }
  return found;
}

void expectStepFiveIsTheLatestAndLoads(const CheckpointStore& store) {
  const std::vector<std::string> files = store.list();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(fs::path(files[0]).filename(), "step-000000000005.wbckpt");
  std::vector<std::string> warnings;
  const auto loaded = store.loadLatestGood([&](const std::string& w) { warnings.push_back(w); });
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->contents.meta["step"], 5);
  EXPECT_EQ(loaded->contents.payload, "small payload");
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(tempFilesIn(store.folder()).empty());
}

TEST(DiskFull, CheckpointOverTheFileSizeLimitKeepsThePreviousOneTheLatest) {
  const std::string dir = test::freshDir("disk-limit");
  CheckpointStore store(dir, /*keep=*/3, /*minimize=*/true);
  store.save(5, nlohmann::json::object(), "small payload");
  const std::string message = test::runWithFileSizeLimit(64 * 1024, [&]() -> std::string {
    try {
      store.save(10, nlohmann::json::object(), std::string(512 * 1024, 'w'));
      return "no error";
    } catch (const UserError& e) {
      return std::string(e.what()) + "\nhint: " + e.hint();
    }
  });
  EXPECT_NE(message.find("The checkpoint of step 10 was not saved."), std::string::npos) << message;
  EXPECT_NE(message.find(store.folder() + "/step-000000000010.wbckpt (512.0 KiB)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("File too large"), std::string::npos) << message;
  EXPECT_NE(message.find("the latest checkpoint is still step-000000000005.wbckpt"), std::string::npos)
      << message;
  EXPECT_NE(message.find("hint: Raise the file size limit"), std::string::npos) << message;
  expectStepFiveIsTheLatestAndLoads(store);
  fs::remove_all(dir);
}

TEST(DiskFull, CheckpointOnAFullDiskKeepsThePreviousOneTheLatest) {
  const auto disk = test::SmallDisk::mount(test::freshDir("disk-tmpfs"), 256);
  if (!disk)
    GTEST_SKIP() << "cannot mount a tmpfs here (not root?); the file size limit test covers the checks";
  CheckpointStore store(disk->dir(), /*keep=*/3, /*minimize=*/true);
  store.save(5, nlohmann::json::object(), "small payload");
  try {
    store.save(10, nlohmann::json::object(), std::string(512 * 1024, 'w'));
    FAIL() << "a 512 KiB checkpoint fitted on a 256 KiB disk";
  } catch (const UserError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("The checkpoint of step 10 was not saved. The disk holding " + store.folder() +
                           " is full"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("step-000000000010.wbckpt (512.0 KiB): No space left on device"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("Run folder: " + disk->dir()), std::string::npos) << message;
    EXPECT_NE(message.find("the latest checkpoint is still step-000000000005.wbckpt"), std::string::npos)
        << message;
    EXPECT_EQ(e.hint().rfind("Free some space on the disk holding the run folder", 0), 0u) << e.hint();
  }
  expectStepFiveIsTheLatestAndLoads(store);
}

TEST(DiskFull, TemporaryFilesOfAKilledWriteAreRemovedAndNeverLoaded) {
  const std::string dir = test::freshDir("disk-killed");
  {
    CheckpointStore store(dir, /*keep=*/3, /*minimize=*/true);
    store.save(5, nlohmann::json::object(), "small payload");
  }
  // A kill during the write of step 10's checkpoint, and during an atomic write of summary.json.
  const std::string ckpt_tmp = dir + "/checkpoints/step-000000000010.wbckpt.tmp." + test::kDeadPid;
  const std::string summary_tmp = dir + "/summary.json.tmp." + test::kDeadPid;
  std::ofstream(ckpt_tmp) << "WBCKPT01 half a checkpoint";
  std::ofstream(summary_tmp) << "{\"status\": ";
  std::ofstream(dir + "/experiment.json") << "{}";

  RunFolder::open(dir);
  EXPECT_FALSE(fs::exists(summary_tmp));
  EXPECT_TRUE(fs::exists(ckpt_tmp));  // the checkpoint folder is the store's to clean
  const CheckpointStore store(dir, /*keep=*/3, /*minimize=*/true);
  EXPECT_FALSE(fs::exists(ckpt_tmp));
  expectStepFiveIsTheLatestAndLoads(store);

  // Even left in place (a live writer's), a temporary file is never listed as a checkpoint.
  const std::string live_tmp =
      dir + "/checkpoints/step-000000000015.wbckpt.tmp." + std::to_string(::getpid());
  std::ofstream(live_tmp) << "WBCKPT01";
  const CheckpointStore again(dir, /*keep=*/3, /*minimize=*/true);
  EXPECT_TRUE(fs::exists(live_tmp));
  ASSERT_EQ(again.list().size(), 1u);
  EXPECT_EQ(fs::path(again.list()[0]).filename(), "step-000000000005.wbckpt");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace wb
