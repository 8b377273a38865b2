// Atomic writes that fail for real (a file size limit, a full tmpfs): the file keeps its old contents, no
// temporary file is left, and the message names the file, the size and the cause. Temporary files of killed
// writers are removed; those of live ones are not.

#include "util/atomic_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend/util/small_disk.h"
#include "support/temporary_folder.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

std::string freshDir(const std::string& name) {
  return test::folderForThisTest("test-" + name);
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> tempFilesIn(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) found.push_back(entry.path());
  }
  return found;
}

TEST(AtomicFile, WriteOverTheFileSizeLimitKeepsTheOldFileAndSaysWhy) {
  const std::string dir = freshDir("atomic-limit");
  const std::string path = dir + "/state.json";
  writeFileAtomically(path, std::string("old"));
  const std::string message = test::runWithFileSizeLimit(16 * 1024, [&]() -> std::string {
    try {
      writeFileAtomically(path, std::string(100 * 1024, 'x'));  // a short file would be 16 KiB
      return "no error";
    } catch (const FileWriteError& e) {
      return std::string(e.errorNumber() == EFBIG ? "EFBIG " : "other errno ") + e.what();
    }
  });
  EXPECT_EQ(message.rfind("EFBIG ", 0), 0u) << message;
  EXPECT_NE(message.find("Could not write " + path + " (100.0 KiB)"), std::string::npos) << message;
  EXPECT_NE(message.find("ulimit -f"), std::string::npos) << message;
  EXPECT_EQ(readAll(path), "old");
  EXPECT_TRUE(tempFilesIn(dir).empty());
}

TEST(AtomicFile, FullDiskKeepsTheOldFileAndSaysTheDiskIsFull) {
  const auto disk = test::SmallDisk::mount(freshDir("atomic-tmpfs"), 64);
  if (!disk)
    GTEST_SKIP() << "cannot mount a tmpfs here (not root?); the file size limit test covers the checks";
  const std::string path = disk->dir() + "/state.json";
  writeFileAtomically(path, std::string("old"));
  try {
    writeFileAtomically(path, {std::string_view("head"), std::string(200 * 1024, 'x')});
    FAIL() << "a 200 KiB file fitted on a 64 KiB disk";
  } catch (const FileWriteError& e) {
    EXPECT_EQ(e.errorNumber(), ENOSPC);
    const std::string message = e.what();
    EXPECT_NE(message.find("The disk holding " + disk->dir() + " is full"), std::string::npos) << message;
    EXPECT_NE(message.find(path + " (200.0 KiB)"), std::string::npos) << message;
    EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
    EXPECT_FALSE(e.hint().empty());
  }
  EXPECT_EQ(readAll(path), "old");
  EXPECT_TRUE(tempFilesIn(disk->dir()).empty());
  // With room again, the same write goes through.
  ASSERT_TRUE(disk->resize(1024));
  writeFileAtomically(path, std::string(200 * 1024, 'y'));
  EXPECT_EQ(readAll(path).size(), 200u * 1024);
}

TEST(AtomicFile, TorchStyleWriterThatFailsLeavesNoTemporaryFile) {
  const std::string dir = freshDir("atomic-writer");
  const std::string path = dir + "/model.pt";
  writeFileAtomically(path, std::string("old"));
  EXPECT_THROW(writeFileAtomically(path,
                                   [](const std::string& tmp) {
                                     std::ofstream(tmp) << "half";
                                     throw std::runtime_error("writer failed");
                                   }),
               std::runtime_error);
  EXPECT_EQ(readAll(path), "old");
  EXPECT_TRUE(tempFilesIn(dir).empty());
}

TEST(AtomicFile, RemovesTheTemporaryFilesOfKilledWritersOnly) {
  EXPECT_TRUE(isAtomicTempFile("step-000000000005.wbckpt.tmp.1234"));
  EXPECT_TRUE(isAtomicTempFile("summary.json.tmp.7"));
  EXPECT_FALSE(isAtomicTempFile("summary.json"));
  EXPECT_FALSE(isAtomicTempFile("summary.json.tmp."));
  EXPECT_FALSE(isAtomicTempFile("notes.tmp.txt"));
  EXPECT_FALSE(isAtomicTempFile(".tmp.12"));

  const std::string dir = freshDir("atomic-stale");
  const std::string dead = dir + "/summary.json.tmp." + test::kDeadPid;
  const std::string live = dir + "/experiment.json.tmp." + std::to_string(::getpid());
  const std::string other = dir + "/notes.tmp.txt";
  for (const std::string& f : {dead, live, other}) std::ofstream(f) << "partial";
  EXPECT_EQ(removeStaleTempFiles(dir), 1);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));  // a writer of this very process may be writing it now
  EXPECT_TRUE(fs::exists(other));
  EXPECT_EQ(removeStaleTempFiles(dir + "/missing"), 0);
}

}  // namespace
}  // namespace wb
