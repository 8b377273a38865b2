// The tests' temporary folders (support/temporary_folder.h): gone when their test ends, and the whole test
// program's temporary directory (TMPDIR) is a folder of its own, so nothing is left in /tmp.

#include "support/temporary_folder.h"

#include <gtest/gtest.h>

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
