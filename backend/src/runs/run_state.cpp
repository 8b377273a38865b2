#include "workbench/run_state.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/experiment.h"

namespace wb {

bool RunState::finished() const {
  return status && (*status == RunStatus::Completed || *status == RunStatus::EarlyStopped);
}

std::string RunState::describe() const {
  if (!status) return "still training, or killed before it could say (no summary.json)";
  const std::string at = " step " + std::to_string(steps) + " (epoch " + std::to_string(epochs) + ")";
  switch (*status) {
    case RunStatus::Completed:
      return "completed at" + at;
    case RunStatus::EarlyStopped:
      return "stopped early at" + at;
    case RunStatus::Interrupted:
      return "interrupted at" + at;
    case RunStatus::Failed:
      return "failed after " + std::to_string(steps) + " steps";
  }
  return wordString(*status);
}

RunState readRunState(const std::string& run_dir) {
  RunState s;
  s.run_dir = run_dir;
  std::error_code ec;
  s.folder = std::filesystem::is_directory(run_dir, ec);
  if (!s.folder) return s;
  s.experiment = loadExperimentFile(run_dir + "/experiment.json").ok();
  std::ifstream in(run_dir + "/summary.json");
  const nlohmann::json summary = nlohmann::json::parse(in, nullptr, false);
  if (summary.is_object()) {
    const RunSummary r = summaryFromJson(summary);
    s.status = r.status;
    s.steps = r.steps;
    s.epochs = r.epochs;
  }
  return s;
}

std::string checkRunModel(const std::string& run_dir, const std::string& action, bool allow_unfinished) {
  const RunState s = readRunState(run_dir);
  if (!s.folder) {
    throw UserError("Run folder not found: " + run_dir,
                    "Give the folder of a run (`workbench-cli runs` lists them).");
  }
  if (!s.experiment) {
    throw UserError(
        run_dir + " is not a run folder: it has no readable experiment.json",
        "Give a folder that `workbench-cli train` made under the runs folder (`workbench-cli runs` lists "
        "them).");
  }
  if (s.finished()) return {};
  if (s.status && *s.status == RunStatus::Failed) {
    throw UserError(
        "The run in " + run_dir + " " + s.describe() + ": it has no trained model to " + action + ".",
        "Its train.log says why; fix the experiment and train it again.");
  }
  if (!allow_unfinished) {
    throw UserError(
        "The run in " + run_dir + " has not finished (" + s.describe() + "): its model.pt is " +
            (s.status ? "the part-trained model of that step" : "not final") + ", not a trained one.",
        "Resume it to the end first (`workbench-cli resume " + run_dir + "`)" +
            (action == "compress"
                 ? std::string(".")
                 : ", or " + action + " the part-trained model on purpose: `workbench-cli " +
                       (action == "evaluate" ? "eval" : action) + " " + run_dir + " --allow-unfinished`."));
  }
  return "the run is " + s.describe() + ": this is its part-trained model" +
         (s.status ? " of step " + std::to_string(s.steps) : std::string()) + ", not a trained one";
}

}  // namespace wb
