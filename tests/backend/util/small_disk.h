#pragma once
// Writes that fail for real, for the full-disk tests: a tiny tmpfs (a disk that fills up: ENOSPC; needs root
// and mount, else the test skips) and a child process under a file size limit (RLIMIT_FSIZE with SIGXFSZ
// ignored: writes past the limit return EFBIG; works everywhere).

#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace wb::test {

class SmallDisk {
 public:
  // A tmpfs of `kib` KiB mounted at `dir` (created); nullptr when this machine does not allow it.
  static std::unique_ptr<SmallDisk> mount(const std::string& dir, int64_t kib) {
    std::filesystem::create_directories(dir);
    const std::string options = "size=" + std::to_string(kib) + "k";
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) return nullptr;
    return std::unique_ptr<SmallDisk>(new SmallDisk(dir));
  }
  // Grows (or shrinks) the disk in place, keeping its files: "freeing space".
  bool resize(int64_t kib) {
    const std::string options = "size=" + std::to_string(kib) + "k";
    return ::mount("tmpfs", m_dir.c_str(), "tmpfs", MS_REMOUNT, options.c_str()) == 0;
  }
  const std::string& dir() const { return m_dir; }
  ~SmallDisk() {
    ::umount2(m_dir.c_str(), MNT_DETACH);
    std::error_code ec;
    std::filesystem::remove_all(m_dir, ec);
  }

 private:
  explicit SmallDisk(std::string dir) : m_dir(std::move(dir)) {}
  std::string m_dir;
};

// Runs `body` in a child process whose files may not grow past `limit_bytes`; returns what `body` returned
// (an exception's message, say), or "child failed" when the child did not report.
inline std::string runWithFileSizeLimit(uint64_t limit_bytes, const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{limit_bytes, limit_bytes};
    std::string result = ::setrlimit(RLIMIT_FSIZE, &limit) == 0 ? body() : "setrlimit failed";
    ssize_t ignored = ::write(fds[1], result.data(), result.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "child failed";
  return out;
}

// A process id that runs nowhere (above Linux's largest pid_max): a temporary file named for it was left by a
// writer that is gone.
constexpr const char* kDeadPid = "999999999";

}  // namespace wb::test
