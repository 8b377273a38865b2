#pragma once
// Temporary folders for tests, removed when their test ends, passed or failed: test runs used to leave their
// wb-* folders in /tmp, gigabytes a day. A folder of a failing test is kept for inspection only when
// WB_KEEP_TEST_FILES=1 says so, and then its path is printed.
//
// TemporaryFolder is the folder itself (removed by its destructor); folderForThisTest hands out a path whose
// folder lives until the current test ends (made in a suite's set-up: until the suite ends), for helpers that
// return paths (freshDir, tempDir). TestProgramTemporaryRoot, in each test program's main, gives the whole
// program and every process it starts (workbench-cli, Python) a temporary directory of its own (TMPDIR),
// removed when the program ends: what a test forgets, or a crash of a child leaves, goes with it.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wb::test {

// WB_KEEP_TEST_FILES=1: keep what a failing test wrote.
inline bool keepFilesOfFailures() {
  const char* keep = std::getenv("WB_KEEP_TEST_FILES");
  return keep != nullptr && std::string(keep) == "1";
}

// Whether the test running now has failed (outside a test: its suite; outside a suite: the program).
inline bool runningTestFailed() {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (const ::testing::TestInfo* test = unit.current_test_info()) return test->result()->Failed();
  if (const ::testing::TestSuite* suite = unit.current_test_suite()) return suite->Failed();
  return unit.Failed();
}

class TemporaryFolder {
 public:
  // A new empty folder under the temporary directory, "wb-<name>-" and six random characters (mkdtemp).
  explicit TemporaryFolder(const std::string& name = "test") {
    std::string pattern = (std::filesystem::temp_directory_path() / ("wb-" + name + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("test: cannot make the folder " + pattern + ": " + std::strerror(errno));
    }
    m_path = pattern;
  }
  ~TemporaryFolder() {
    // A forked child that exits through exit() runs the static destructors too: the folders are its parent's.
    if (m_path.empty() || ::getpid() != m_owner) return;  // moved from, or in a forked child
    if (keepFilesOfFailures() && runningTestFailed()) {
      std::printf("WB_KEEP_TEST_FILES=1: kept %s\n", m_path.c_str());
      return;
    }
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  TemporaryFolder(TemporaryFolder&& other) noexcept
      : m_path(std::exchange(other.m_path, {})), m_owner(other.m_owner) {}
  TemporaryFolder& operator=(TemporaryFolder&&) = delete;
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  const std::string& path() const { return m_path; }
  std::string file(const std::string& name) const { return m_path + "/" + name; }

 private:
  std::string m_path;
  pid_t m_owner = ::getpid();  // the process that made it, the one that removes it
};

// The folders handed out by folderForThisTest, by how long they live; TestFoldersRemover ends them.
class TestFolders {
 public:
  static TestFolders& instance() {
    static TestFolders folders;  // its destructor removes the program's at exit
    return folders;
  }
  std::string make(const std::string& name) {
    TemporaryFolder folder(name);
    std::string path = folder.path();
    const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
    std::lock_guard<std::mutex> lock(m_mutex);
    std::vector<TemporaryFolder>& owner = unit.current_test_info()    ? m_test
                                          : unit.current_test_suite() ? m_suite
                                                                      : m_program;
    owner.push_back(std::move(folder));
    return path;
  }
  // The destructors ask runningTestFailed, so these run while the test (suite) is still the running one.
  void endTest() { release(m_test); }
  void endSuite() { release(m_suite); }

 private:
  void release(std::vector<TemporaryFolder>& folders) {
    std::vector<TemporaryFolder> ending;
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      ending.swap(folders);
    }
  }

  std::mutex m_mutex;
  std::vector<TemporaryFolder> m_test, m_suite, m_program;
};

// A new empty folder, removed when the current test ends (see above).
inline std::string folderForThisTest(const std::string& name) {
  return TestFolders::instance().make(name);
}

// GoogleTest's events that end the folders of a test and of a suite.
class TestFoldersRemover : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo&) override { TestFolders::instance().endTest(); }
  void OnTestSuiteEnd(const ::testing::TestSuite&) override { TestFolders::instance().endSuite(); }
};

// For a test program's main, before the tests run: TMPDIR names a folder of this program's, so
// std::filesystem::temp_directory_path(), mkdtemp, ::testing::TempDir() and the processes the tests start all
// write there; removed at the end of main (kept, with WB_KEEP_TEST_FILES=1, when a test failed). It also
// installs TestFoldersRemover.
class TestProgramTemporaryRoot {
 public:
  TestProgramTemporaryRoot() : m_root("tests") {
    ::setenv("TMPDIR", m_root.path().c_str(), 1);
    ::testing::UnitTest::GetInstance()->listeners().Append(new TestFoldersRemover);
  }

 private:
  TemporaryFolder m_root;
};

}  // namespace wb::test
