#include "workbench/run_index.h"

#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runs/run_index_db.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/run_info.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

RunRecord requireIndexed(const std::string& runs_dir, const std::string& folder) {
  std::optional<RunRecord> record = findRun(runs_dir, folder);
  if (!record) {
    throw UserError("The run " + folder + " is not in the run index of " + runs_dir + ".",
                    "Refresh the runs list; a folder copied from elsewhere can be added to the index first.");
  }
  return *record;
}

// When a folder without a start time in any index was started: the local time its name begins with
// ("20261203-141500-…", as RunFolder names them), else its experiment.json's modification time; in UTC.
std::string startedUtc(const std::string& folder, const std::string& file) {
  const std::string name = std::filesystem::path(folder).filename().string();
  std::tm local{};
  if (name.size() >= 15 && std::sscanf(name.c_str(), "%4d%2d%2d-%2d%2d%2d", &local.tm_year, &local.tm_mon,
                                       &local.tm_mday, &local.tm_hour, &local.tm_min, &local.tm_sec) == 6) {
    local.tm_year -= 1900;
    local.tm_mon -= 1;
    local.tm_isdst = -1;
    const std::time_t when = std::mktime(&local);
    if (when != static_cast<std::time_t>(-1)) {
      std::tm utc{};
      gmtime_r(&when, &utc);
      char text[32];
      std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
      return text;
    }
  }
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0) return {};
  std::tm utc{};
  gmtime_r(&info.st_mtime, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

std::vector<RunRecord> listRuns(const std::string& runs_dir) {
  if (!std::filesystem::exists(RunIndexDb::fileIn(runs_dir))) return {};
  RunIndexDb db(runs_dir);
  return db.list();
}

std::optional<RunRecord> findRun(const std::string& runs_dir, const std::string& id_or_folder) {
  const bool numeric =
      !id_or_folder.empty() && id_or_folder.find_first_not_of("0123456789") == std::string::npos;
  for (RunRecord& record : listRuns(runs_dir)) {
    if (numeric && std::to_string(record.id) == id_or_folder) return record;
    if (record.folder == id_or_folder || fs::path(record.folder).filename() == id_or_folder) return record;
    std::error_code ec;
    if (fs::equivalent(record.folder, id_or_folder, ec)) return record;
  }
  return std::nullopt;
}

void updateRunInfo(const std::string& runs_dir, const std::string& folder, const RunInfo& info) {
  const RunRecord record = requireIndexed(runs_dir, folder);
  if (info.name.find_first_not_of(" \t\r\n") == std::string::npos) {
    throw UserError("A run's name cannot be empty.",
                    "Type a name, or press Escape to keep \"" + record.name + "\".");
  }
  // The folder's run.json first: it is what travels with the run; the index mirrors it.
  writeRunInfo(record.folder, info);
  const RunInfo written = readRunInfo(record.folder).value_or(info);
  RunIndexDb db(runs_dir);
  db.setInfo(record.id, written);
}

RunRecord addRunFolder(const std::string& runs_dir, const std::string& folder) {
  const std::string absolute = fs::absolute(folder).lexically_normal().string();
  if (std::optional<RunRecord> known = findRun(runs_dir, absolute)) return *known;
  const ParseResult parsed = loadExperimentFile(absolute + "/experiment.json");
  if (!parsed.ok()) {
    throw UserError(folder + " is not a run folder: " + formatIssues(parsed.issues),
                    "Pick a folder that a run created under output.runs_dir.");
  }
  RunSummary summary;
  RunIndexStatus status = RunIndexStatus::Interrupted;  // no summary: the run never ended
  std::ifstream in(absolute + "/summary.json");
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json doc = nlohmann::json::parse(text.str(), nullptr, false);
    if (doc.is_object()) {
      summary = summaryFromJson(doc);
      status = indexStatus(summary.status);
    }
  }
  if (status == RunIndexStatus::Interrupted) summary.wall_s = -1;
  RunInfo info = readRunInfo(absolute).value_or(RunInfo{});
  RunIndexDb db(runs_dir);
  const int64_t id = db.importRun(info.name.empty() ? experimentRunName(parsed.experiment) : info.name,
                                  experimentHash(experimentToJson(parsed.experiment).dump()), absolute,
                                  status, startedUtc(absolute, absolute + "/experiment.json"), summary);
  if (info.name.empty()) info.name = numberedRunName(parsed.experiment, id);
  db.describeRun(id, parsed.experiment);
  db.setInfo(id, info);
  return requireIndexed(runs_dir, absolute);
}

void deleteRun(const std::string& runs_dir, const std::string& folder) {
  const RunRecord record = requireIndexed(runs_dir, folder);
  if (record.status == RunIndexStatus::Running) {
    throw UserError("The run \"" + record.name + "\" is training (process " + std::to_string(record.pid) +
                        " on " + record.host + "): it cannot be deleted.",
                    "Stop it first (Run ▸ Stop, or Ctrl-C in its terminal), then delete it.");
  }
  std::error_code ec;
  if (fs::exists(record.folder, ec)) {
    if (!fs::is_regular_file(fs::path(record.folder) / "experiment.json")) {
      throw UserError(
          record.folder + " does not look like a run folder (no experiment.json): it was not deleted.",
          "Check the folder by hand; the index entry is kept.");
    }
    fs::remove_all(record.folder, ec);
    if (ec) {
      throw UserError("Could not delete " + record.folder + ": " + ec.message(),
                      "Check the folder's permissions; what could not be removed is still there.");
    }
  }
  RunIndexDb db(runs_dir);
  db.removeRun(record.id);
}

}  // namespace wb
