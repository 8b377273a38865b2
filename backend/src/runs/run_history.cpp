#include "workbench/run_history.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/experiment_defaults.h"

namespace wb {
namespace {

// Reads the whole lines of an events file from `offset` and hands each event over. Returns the offset after
// the last whole line (a line without its newline yet is being written: it is read next time).
template <typename OnEvent>
uint64_t readEventLines(const std::string& file, uint64_t offset, OnEvent on_event) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return offset;
  in.seekg(static_cast<std::streamoff>(offset));
  if (!in) return offset;
  std::string line;
  uint64_t position = offset;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // no newline after it: still being written
    position += line.size() + 1;
    if (line.empty()) continue;
    nlohmann::json object = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (object.is_discarded()) continue;
    std::optional<Event> event = eventFromJson(object);
    if (event) on_event(std::move(*event));
  }
  return position;
}

}  // namespace

RunHistoryTail readRunHistoryTail(const std::string& run_dir, uint64_t offset) {
  namespace fs = std::filesystem;
  RunHistoryTail tail;
  std::error_code ec;
  // Checked first: once it exists, every line of metrics.jsonl is already written.
  tail.ended = fs::exists(fs::path(run_dir) / "summary.json", ec);
  const std::uintmax_t size = fs::file_size(fs::path(run_dir) / "metrics.jsonl", ec);
  if (!ec && size < offset) {
    tail.rewound = true;
    tail.metrics_bytes = offset;
    return tail;
  }
  tail.metrics_bytes =
      readEventLines((fs::path(run_dir) / "metrics.jsonl").string(), offset, [&](Event&& event) {
        if (auto* step = std::get_if<StepMetrics>(&event)) {
          tail.steps.push_back(*step);
        } else if (auto* epoch = std::get_if<EpochMetrics>(&event)) {
          tail.epochs.push_back(*epoch);
        } else if (auto* control = std::get_if<ControlApplied>(&event)) {
          tail.controls.push_back(std::move(*control));
        }
      });
  return tail;
}

RunHistory loadRunHistory(const std::string& run_dir) {
  namespace fs = std::filesystem;
  const fs::path dir(run_dir);
  const fs::path experiment_file = dir / "experiment.json";
  if (!fs::is_regular_file(experiment_file)) {
    throw UserError(run_dir + " is not a run folder: it has no experiment.json.",
                    "Pick a folder that a run created under output.runs_dir.");
  }
  RunHistory history;
  history.run_dir = run_dir;
  ParseResult parsed = loadExperimentFile(experiment_file.string());
  if (!parsed.ok()) {
    throw UserError("The experiment of run " + run_dir + " cannot be read:\n" + formatIssues(parsed.issues),
                    "The run folder's experiment.json was edited or damaged.");
  }
  history.experiment = std::move(parsed.experiment);
  history.defaulted_keys = defaultedKeys(experimentToJson(history.experiment));

  // A run killed mid-write leaves at most a partial last line; unknown or damaged lines are skipped.
  history.metrics_bytes = readEventLines((dir / "metrics.jsonl").string(), 0, [&](Event&& event) {
    if (auto* step = std::get_if<StepMetrics>(&event)) {
      history.steps.push_back(*step);
    } else if (auto* epoch = std::get_if<EpochMetrics>(&event)) {
      history.epochs.push_back(*epoch);
    } else if (auto* log = std::get_if<LogLine>(&event)) {
      history.logs.push_back(std::move(*log));
    } else if (auto* control = std::get_if<ControlApplied>(&event)) {
      history.controls.push_back(std::move(*control));
    }
  });

  std::ifstream summary_file(dir / "summary.json");
  if (summary_file) {
    std::stringstream text;
    text << summary_file.rdbuf();
    nlohmann::json object = nlohmann::json::parse(text.str(), nullptr, false);
    if (object.is_object()) history.summary = summaryFromJson(object);
  }
  return history;
}

}  // namespace wb
