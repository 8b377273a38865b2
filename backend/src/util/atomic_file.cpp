#include "util/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "workbench/errors.h"

namespace wb {
namespace {

void syncPath(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) return;  // best effort: the rename itself is what guarantees all-or-nothing
  ::fsync(fd);
  ::close(fd);
}

std::string tempPathFor(const std::string& path) {
  return path + ".tmp." + std::to_string(::getpid());
}

void commit(const std::string& tmp, const std::string& path) {
  syncPath(tmp, false);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    throw UserError("Could not write " + path + ": " + reason,
                    "Check that the folder is writable and the disk is not full.");
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  syncPath(parent.empty() ? "." : parent.string(), true);
}

}  // namespace

void writeFileAtomically(const std::string& path, const std::string& contents) {
  writeFileAtomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.flush();
    if (!out) {
      throw UserError("Could not write " + path + ": " + std::strerror(errno),
                      "Check that the folder is writable and the disk is not full.");
    }
  });
}

void writeFileAtomically(const std::string& path, const std::function<void(const std::string& tmp)>& write) {
  const std::string tmp = tempPathFor(path);
  try {
    write(tmp);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  commit(tmp, path);
}

}  // namespace wb
