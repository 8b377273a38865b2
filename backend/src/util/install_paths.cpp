#include "workbench/install_paths.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace wb {
namespace {

namespace fs = std::filesystem;

bool isDirectory(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec);
}

}  // namespace

std::string executableDir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

std::string examplesDir() {
  if (const char* overridden = std::getenv("TORCH_WORKBENCH_EXAMPLES"); overridden && *overridden) {
    return overridden;
  }
  const std::string exe_dir = executableDir();
  if (!exe_dir.empty()) {
    const fs::path installed = fs::path(exe_dir) / ".." / "share" / "torch-workbench" / "examples";
    if (isDirectory(installed)) return fs::weakly_canonical(installed).string();
  }
#ifdef WB_SOURCE_DIR
  // Built in a source tree and not installed: the tree's own copy (the path is compiled in, see
  // backend/CMakeLists.txt).
  const fs::path source = fs::path(WB_SOURCE_DIR) / "resources" / "examples";
  if (isDirectory(source)) return source.string();
#endif
  return {};
}

std::string cliExecutable() {
  if (const char* overridden = std::getenv("TORCH_WORKBENCH_CLI"); overridden && *overridden)
    return overridden;
  const std::string exe_dir = executableDir();
  if (exe_dir.empty()) return {};
  for (const fs::path candidate :
       {fs::path(exe_dir) / "workbench-cli", fs::path(exe_dir) / ".." / "cli" / "workbench-cli"}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
  }
  return {};
}

}  // namespace wb
