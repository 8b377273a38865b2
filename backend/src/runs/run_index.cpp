#include "workbench/run_index.h"

#include <filesystem>

#include "runs/run_index_db.h"

namespace wb {

std::vector<RunRecord> listRuns(const std::string& runs_dir) {
  if (!std::filesystem::exists(RunIndexDb::fileIn(runs_dir))) return {};
  RunIndexDb db(runs_dir);
  return db.list();
}

std::optional<RunRecord> findRun(const std::string& runs_dir, const std::string& id_or_folder) {
  namespace fs = std::filesystem;
  const bool numeric = !id_or_folder.empty() && id_or_folder.find_first_not_of("0123456789") == std::string::npos;
  for (RunRecord& record : listRuns(runs_dir)) {
    if (numeric && std::to_string(record.id) == id_or_folder) return record;
    if (record.folder == id_or_folder || fs::path(record.folder).filename() == id_or_folder) return record;
    std::error_code ec;
    if (fs::equivalent(record.folder, id_or_folder, ec)) return record;
  }
  return std::nullopt;
}

}  // namespace wb
