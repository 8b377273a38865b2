// Fuzz target: the run index reader (runs.sqlite, read by `workbench-cli runs` and the window's runs browser
// through listRuns/findRun). The input is the database file's bytes: damaged pages, another schema, columns
// of other types or NULL, absurd numbers. SQLite itself guards its file format; what is ours is what we do
// with what it hands back. Promise: a UserError naming the file, or records we can print — never a crash.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "fuzz_support.h"
#include "workbench/errors.h"
#include "workbench/run_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  using namespace wb;
  if (size > 512 * 1024) return 0;
  const fs::path dir = fuzz::scratchDir() / "runs";
  std::error_code ec;
  fs::remove_all(dir, ec);  // with runs.sqlite-wal and -shm of the last input
  fs::create_directories(dir);
  fuzz::writeFile(dir / "runs.sqlite", std::string(reinterpret_cast<const char*>(data), size));
  try {
    for (const RunRecord& run : listRuns(dir.string())) {
      (void)(run.name.size() + wordOf(run.status).size() + run.folder.size() + run.started_at.size());
    }
    if (auto run = findRun(dir.string(), "1")) (void)run->name.size();
    if (auto run = findRun(dir.string(), "20260101-000000-mlp")) (void)run->folder.size();
  } catch (const UserError& error) {
    fuzz::expectMessage(error);
  }
  return 0;
}
