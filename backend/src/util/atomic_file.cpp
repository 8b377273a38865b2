#include "util/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "util/file_syscalls.h"

namespace wb {

FileSyscalls& fileSyscalls() {
  static FileSyscalls calls{::write, ::fsync, ::close, std::rename};
  return calls;
}
namespace {

namespace fs = std::filesystem;

constexpr const char* kTempInfix = ".tmp.";

std::string tempPathFor(const std::string& path) {
  return path + kTempInfix + std::to_string(::getpid());
}

std::string folderOf(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

std::string sizeText(uint64_t bytes) {
  char text[64];
  if (bytes < 1024) {
    std::snprintf(text, sizeof(text), "%llu bytes", static_cast<unsigned long long>(bytes));
  } else if (bytes < (1ull << 20)) {
    std::snprintf(text, sizeof(text), "%.1f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(text, sizeof(text), "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  }
  return text;
}

// `step` says what failed ("writing", "flushing", ...); `bytes` is the size of the whole file being written.
// `replaced`: the new version was already renamed into place (only the folder's flush failed).
[[noreturn]] void throwWriteError(const std::string& path, uint64_t bytes, const char* step, int error,
                                  bool replaced = false) {
  const std::string what = sizeText(bytes);
  const std::string reason = std::strerror(error);
  if (replaced) {
    throw FileWriteError("Wrote " + path + " (" + what + "), but " + step + " failed: " + reason +
                             "; the new version may not survive a power loss.",
                         "Check the disk holding " + folderOf(path) + "; " + path + " holds the new version.",
                         error);
  }
  if (error == ENOSPC || error == EDQUOT) {
    throw FileWriteError(
        "The disk holding " + folderOf(path) + " is full: could not write " + path + " (" + what +
            "): " + reason + ".",
        "Free some space on that disk, or write to another one; " + path + " was left as it was.", error);
  }
  if (error == EFBIG) {
    throw FileWriteError(
        "Could not write " + path + " (" + what +
            "): the file is larger than this process may write (the file size limit, ulimit -f, "
            "or the file system's): " +
            reason + ".",
        "Raise the limit (ulimit -f unlimited) or use another file system; " + path + " was left as it was.",
        error);
  }
  throw FileWriteError(
      "Could not write " + path + " (" + what + ") while " + step + ": " + reason + ".",
      "Check that the folder is writable and its disk works; " + path + " was left as it was.", error);
}

// Closes `fd` (when open) and removes the temporary file, keeping errno for the message.
void discard(int fd, const std::string& tmp) {
  const int saved = errno;
  if (fd >= 0) fileSyscalls().close(fd);
  ::unlink(tmp.c_str());
  errno = saved;
}

// A folder is flushed after the rename: its failure is reported with the new version in place.
void fsyncPath(const std::string& path, bool directory, const std::string& target, uint64_t bytes) {
  const int fd = ::open(path.c_str(), (directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    throwWriteError(target, bytes, directory ? "opening its folder to flush it" : "flushing it", errno,
                    directory);
  }
  if (fileSyscalls().fsync(fd) != 0 && !(directory && (errno == EINVAL || errno == EROFS))) {
    // Some file systems cannot fsync a folder (EINVAL): the rename is then as durable as they make it.
    const int error = errno;
    fileSyscalls().close(fd);
    throwWriteError(target, bytes, directory ? "flushing its folder" : "flushing it", error, directory);
  }
  if (fileSyscalls().close(fd) != 0) {
    throwWriteError(target, bytes, directory ? "closing its folder" : "closing it", errno, directory);
  }
}

// Renames the complete, flushed temporary file over `path`, then flushes the folder so the rename lasts.
void commit(const std::string& tmp, const std::string& path, uint64_t bytes) {
  if (fileSyscalls().rename(tmp.c_str(), path.c_str()) != 0) {
    discard(-1, tmp);
    throwWriteError(path, bytes, "renaming it into place", errno);
  }
  fsyncPath(folderOf(path), true, path, bytes);
}

}  // namespace

FileWriteError appendFailure(const std::string& path, int error) {
  if (error == 0) error = EIO;  // stdio's error flag without an errno
  const std::string reason = std::strerror(error);
  if (error == ENOSPC || error == EDQUOT) {
    return FileWriteError(
        "The disk holding " + folderOf(path) + " is full: could not append to " + path + ": " + reason + ".",
        "Free some space on that disk; what was written before stays.", error);
  }
  if (error == EFBIG) {
    return FileWriteError(
        "Could not append to " + path +
            ": the file is larger than this process may write (the file size limit, ulimit -f, "
            "or the file system's): " +
            reason + ".",
        "Raise the limit (ulimit -f unlimited) or use another file system.", error);
  }
  return FileWriteError("Could not append to " + path + ": " + reason + ".",
                        "Check that the folder is writable and its disk works.", error);
}

void writeFileAtomically(const std::string& path, std::initializer_list<std::string_view> pieces) {
  uint64_t total = 0;
  for (std::string_view piece : pieces) total += piece.size();
  const std::string tmp = tempPathFor(path);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throwWriteError(path, total, "creating its temporary file", errno);
  for (std::string_view piece : pieces) {
    const char* at = piece.data();
    size_t left = piece.size();
    while (left > 0) {
      // A write may take less than it was given (a disk filling up): the rest is written next, and the one
      // after the disk is full returns the error.
      const ssize_t n = fileSyscalls().write(fd, at, std::min<size_t>(left, size_t{1} << 30));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (n == 0) errno = EIO;
        discard(fd, tmp);
        throwWriteError(path, total, "writing it", errno);
      }
      at += n;
      left -= static_cast<size_t>(n);
    }
  }
  // Delayed allocation and network file systems report a full disk only here.
  if (fileSyscalls().fsync(fd) != 0) {
    discard(fd, tmp);
    throwWriteError(path, total, "flushing it", errno);
  }
  if (fileSyscalls().close(fd) != 0) {
    discard(-1, tmp);
    throwWriteError(path, total, "closing it", errno);
  }
  commit(tmp, path, total);
}

void writeFileAtomically(const std::string& path, const std::string& contents) {
  writeFileAtomically(path, {std::string_view(contents)});
}

void writeFileAtomically(const std::string& path, const std::function<void(const std::string& tmp)>& write) {
  const std::string tmp = tempPathFor(path);
  try {
    write(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  std::error_code ec;
  const auto size = fs::file_size(tmp, ec);
  const uint64_t bytes = ec ? 0 : static_cast<uint64_t>(size);
  try {
    fsyncPath(tmp, false, path, bytes);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  commit(tmp, path, bytes);
}

bool isAtomicTempFile(const std::string& file_name) {
  const size_t at = file_name.rfind(kTempInfix);
  if (at == std::string::npos || at == 0) return false;
  const size_t digits = at + std::strlen(kTempInfix);
  if (digits >= file_name.size()) return false;
  return std::all_of(file_name.begin() + static_cast<std::ptrdiff_t>(digits), file_name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

int removeStaleTempFiles(const std::string& folder) {
  int removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (!isAtomicTempFile(name)) continue;
    const std::string digits = name.substr(name.rfind(kTempInfix) + std::strlen(kTempInfix));
    if (digits.size() > 9) continue;  // not a pid of ours
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    // A writer that still runs (another thread of this process, or another process resuming the same run by
    // mistake) keeps its file: removing it would fail that writer's rename.
    if (pid == ::getpid() || (pid > 0 && ::kill(pid, 0) == 0) || (pid > 0 && errno == EPERM)) continue;
    std::error_code remove_ec;
    if (fs::remove(entry.path(), remove_ec)) ++removed;
  }
  return removed;
}

}  // namespace wb
