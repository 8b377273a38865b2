// The tests' temporary folders (support/temporary_folder.h): gone when their test ends, and the whole test
// program's temporary directory (TMPDIR) is a folder of its own, so nothing is left in /tmp.

#include "support/temporary_folder.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace wb {
namespace {

namespace fs = std::filesystem;

TEST(TemporaryFolder, IsRemovedWithWhatItHoldsAtTheEndOfItsScope) {
  std::string path;
  {
    const test::TemporaryFolder folder("temporary-folder-test");
    path = folder.path();
    ASSERT_TRUE(fs::is_directory(path));
    EXPECT_TRUE(fs::is_empty(path));
    fs::create_directories(folder.file("runs/run-1"));
    std::ofstream(folder.file("runs/run-1/model.pt")) << "weights";
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(TemporaryFolder, EachIsNew) {
  const test::TemporaryFolder first("same-name");
  const test::TemporaryFolder second("same-name");
  EXPECT_NE(first.path(), second.path());
}

TEST(TemporaryFolder, AFolderForATestLivesUntilTheTestEnds) {
  const std::string path = test::folderForThisTest("until-the-test-ends");
  std::ofstream(path + "/file") << "x";
  EXPECT_TRUE(fs::exists(path + "/file"));
  // What GoogleTest's end of this test does (TestFoldersRemover, installed by the test program's main).
  test::TestFolders::instance().endTest();
  EXPECT_FALSE(fs::exists(path));
}

// A forked child (a test's worker process) that ends through exit() runs the static destructors, the test
// folders' registry's among them: its parent's folders must outlive it.
TEST(TemporaryFolder, AForkedChildLeavesItsParentsFoldersAlone) {
  const std::string path = test::folderForThisTest("forked");
  std::fflush(nullptr);  // the child's exit flushes what is buffered: once is enough
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    test::TestFolders::instance().endTest();  // as the child's exit would end them
    std::exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(fs::is_directory(path));
}

// gtest_main.cpp's TestProgramTemporaryRoot: the temporary directory this program and the processes it
// starts see is a wb-tests-* folder, removed when the program ends.
TEST(TemporaryFolder, TheTestProgramHasATemporaryDirectoryOfItsOwn) {
  const char* tmpdir = std::getenv("TMPDIR");
  ASSERT_NE(tmpdir, nullptr);
  EXPECT_EQ(fs::path(tmpdir).filename().string().rfind("wb-tests-", 0), 0u) << tmpdir;
  EXPECT_EQ(fs::temp_directory_path(), fs::path(tmpdir));
  EXPECT_EQ(fs::path(test::folderForThisTest("inside")).parent_path(), fs::path(tmpdir));
}

}  // namespace
}  // namespace wb
