// Atomic writes whose fsync, close, rename or write fail (injected through util/file_syscalls: an I/O error
// or a full disk reported only at fsync or close — as network file systems and delayed allocation do — cannot
// be caused for real here). Every failure before the rename keeps the old file and leaves no temporary file;
// a failure to flush the folder after the rename says the new version is in place but may not be durable.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/temporary_folder.h"
#include "util/atomic_file.h"
#include "util/file_syscalls.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

// Which call fails, on which use (1 = the first), with which errno. Plain globals: the table holds plain
// function pointers.
struct Fault {
  int fsync_fails_on = 0;
  int close_fails_on = 0;
  int rename_error = 0;
  size_t write_at_most = 0;  // short writes: at most this many bytes a call
  bool write_returns_zero = false;
  int error = EIO;
  int fsyncs = 0;
  int closes = 0;
} g_fault;

class InjectedFaults {
 public:
  InjectedFaults() : m_saved(fileSyscalls()) {
    g_fault = Fault{};
    fileSyscalls().fsync = [](int fd) {
      if (++g_fault.fsyncs == g_fault.fsync_fails_on) {
        errno = g_fault.error;
        return -1;
      }
      return ::fsync(fd);
    };
    fileSyscalls().close = [](int fd) {
      if (++g_fault.closes == g_fault.close_fails_on) {
        ::close(fd);  // Linux closes the descriptor even when close reports an error
        errno = g_fault.error;
        return -1;
      }
      return ::close(fd);
    };
    fileSyscalls().rename = [](const char* from, const char* to) {
      if (g_fault.rename_error != 0) {
        errno = g_fault.rename_error;
        return -1;
      }
      return std::rename(from, to);
    };
    fileSyscalls().write = [](int fd, const void* data, size_t size) -> ssize_t {
      if (g_fault.write_returns_zero) return 0;
      if (g_fault.write_at_most > 0 && size > g_fault.write_at_most) size = g_fault.write_at_most;
      return ::write(fd, data, size);
    };
  }
  ~InjectedFaults() { fileSyscalls() = m_saved; }

 private:
  FileSyscalls m_saved;
};

class FileSyscallFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = test::folderForThisTest("test-syscall-faults");
    m_file = m_dir + "/summary.json";
    std::ofstream(m_file) << "old";
  }

  std::string contents() const {
    std::ifstream in(m_file, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  int tempFiles() const {
    int n = 0;
    for (const auto& entry : fs::directory_iterator(m_dir))
      n += isAtomicTempFile(entry.path().filename()) ? 1 : 0;
    return n;
  }
  // The write's error message, or "" when it succeeded.
  std::string write(const std::string& text) {
    try {
      writeFileAtomically(m_file, text);
      return "";
    } catch (const FileWriteError& e) {
      m_errno = e.errorNumber();
      return e.what();
    }
  }

  std::string m_dir;
  std::string m_file;
  int m_errno = 0;
};

TEST_F(FileSyscallFaults, FailedFsyncOfTheFileKeepsTheOldOne) {
  InjectedFaults faults;
  g_fault.fsync_fails_on = 1;
  const std::string message = write("new contents");
  EXPECT_NE(message.find("Could not write " + m_file + " (12 bytes) while flushing it: Input/output error"),
            std::string::npos)
      << message;
  EXPECT_EQ(m_errno, EIO);
  EXPECT_EQ(contents(), "old");
  EXPECT_EQ(tempFiles(), 0);
}

TEST_F(FileSyscallFaults, FullDiskReportedOnlyAtFsyncSaysTheDiskIsFull) {
  InjectedFaults faults;
  g_fault.fsync_fails_on = 1;
  g_fault.error = ENOSPC;
  const std::string message = write("new contents");
  EXPECT_NE(message.find("The disk holding " + m_dir + " is full"), std::string::npos) << message;
  EXPECT_EQ(contents(), "old");
  EXPECT_EQ(tempFiles(), 0);
}

TEST_F(FileSyscallFaults, FailedCloseKeepsTheOldOne) {
  InjectedFaults faults;
  g_fault.close_fails_on = 1;
  const std::string message = write("new contents");
  EXPECT_NE(message.find("while closing it: Input/output error"), std::string::npos) << message;
  EXPECT_EQ(contents(), "old");
  EXPECT_EQ(tempFiles(), 0);
}

TEST_F(FileSyscallFaults, FailedRenameKeepsTheOldOne) {
  InjectedFaults faults;
  g_fault.rename_error = EXDEV;
  const std::string message = write("new contents");
  EXPECT_NE(message.find("while renaming it into place"), std::string::npos) << message;
  EXPECT_EQ(contents(), "old");
  EXPECT_EQ(tempFiles(), 0);
}

TEST_F(FileSyscallFaults, FailedFolderFlushSaysTheNewVersionIsInPlace) {
  InjectedFaults faults;
  g_fault.fsync_fails_on = 2;  // the file's fsync works, the folder's does not
  const std::string message = write("new contents");
  EXPECT_NE(
      message.find("Wrote " + m_file + " (12 bytes), but flushing its folder failed: Input/output error"),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("may not survive a power loss"), std::string::npos) << message;
  EXPECT_EQ(contents(), "new contents");
  EXPECT_EQ(tempFiles(), 0);
}

TEST_F(FileSyscallFaults, ShortWritesAreContinuedAndAWriteOfNothingIsAnError) {
  {
    InjectedFaults faults;
    g_fault.write_at_most = 3;
    EXPECT_EQ(write("a longer text than three bytes"), "");
    EXPECT_EQ(contents(), "a longer text than three bytes");
  }
  {
    InjectedFaults faults;
    g_fault.write_returns_zero = true;
    const std::string message = write("never written");
    EXPECT_NE(message.find("while writing it: Input/output error"), std::string::npos) << message;
    EXPECT_EQ(contents(), "a longer text than three bytes");
    EXPECT_EQ(tempFiles(), 0);
  }
}

}  // namespace
}  // namespace wb
