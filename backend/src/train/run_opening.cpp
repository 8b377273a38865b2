// RunOpening: a run's folder created, reopened for a resume, or followed from rank 0 (see run_opening.h).
#include "train/run_opening.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "distributed/collective_error.h"
#include "distributed/process_group_ranks.h"
#include "run_folder/checkpoint_file.h"
#include "train/run_index_entry.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/experiment_defaults.h"
#include "workbench/run_index.h"
#include "workbench/run_info.h"

namespace wb {

namespace fs = std::filesystem;

RunOpening::RunOpening(Experiment& experiment, EventStream& events, RunSummary& result)
    : m_experiment(experiment), m_events(events), m_result(result) {}

// Rank 0 creates or reopens the folder and says which checkpoint continues; this rank follows it.
void RunOpening::follow(const c10::intrusive_ptr<c10d::Store>& store, const ProcessLaunch& launch,
                        bool resume) {
  try {
    // Rank 0 may refuse to start (a bad or changed experiment): it says so in the store; stop waiting then.
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::milliseconds(static_cast<int64_t>(m_experiment.train.collective_timeout * 1000.0));
    for (;;) {
      try {
        store->wait({"wb/run_dir"}, std::chrono::seconds(1));
        break;
      } catch (const c10::Error&) {
        const std::string refused = describeRankFailures(store, launch.world_size, launch.rank);
        if (!refused.empty())
          throw CollectiveError("Rank " + std::to_string(launch.rank) + ": not started, " + refused);
        if (std::chrono::steady_clock::now() > deadline) throw;
      }
    }
    const auto dir = store->get("wb/run_dir");
    run_dir.assign(dir.begin(), dir.end());
    const auto ckpt = store->get("wb/checkpoint");
    const std::string path(ckpt.begin(), ckpt.end());
    if (!path.empty()) checkpoint = LoadedCheckpoint{path, readCheckpointFile(path)};
  } catch (const c10::Error& e) {
    throw CollectiveError("Rank " + std::to_string(launch.rank) +
                          ": rank 0 did not announce the run folder within train.collective_timeout (" +
                          e.what_without_backtrace() + "); see rank 0's output.");
  }
  m_result.run_dir = run_dir;
  if (resume) {
    const ParseResult parsed = loadExperimentFile(run_dir + "/experiment.json");
    if (parsed.ok()) m_experiment = parsed.experiment;
  }
}

void RunOpening::reopen(const ResumeRequest& resume, const std::optional<ProcessLaunch>& launch) {
  folder = std::make_unique<RunFolder>(RunFolder::open(resume.run_dir));
  m_result.run_dir = folder->path();
  runs_dir = fs::path(absoluteFolder(folder->path())).parent_path().string();
  const ParseResult parsed = loadExperimentFile(folder->file("experiment.json"));
  if (!parsed.ok()) {
    throw UserError("The run's experiment.json cannot be used:\n" + formatIssues(parsed.issues),
                    "Fix the file in " + folder->path() + " or start a new run.");
  }
  m_experiment = parsed.experiment;
  refuseFinishedOrRunning();
  const CheckpointStore store_of_run(
      folder->path(), m_experiment.train.keep_checkpoints,
      m_experiment.train.early_stopping.metric != ValidationMetric::ValAccuracy);
  checkpoint = store_of_run.loadLatestGood(
      [&](const std::string& warning) { m_events.log(LogLevel::Warning, warning); });
  if (checkpoint) {
    refuseChangesSinceCheckpoint(resume, launch);
    folder->truncateLogs(checkpoint->contents.meta.value("log_lengths", nlohmann::json::object()));
    wall_before = checkpoint->contents.meta.value("wall_s", 0.0);
  } else {
    // Killed before its first checkpoint: nothing to continue from, so it starts over in its folder.
    folder->truncateLogs(nlohmann::json::object());
    wall_before = 0;
  }
  std::error_code ec;
  fs::remove(folder->file("summary.json"), ec);
  folder_owned = true;
  m_events.setRecorder(folder.get());
  m_events.log(LogLevel::Info, checkpoint ? "Resuming " + folder->path() + " from " + checkpoint->path
                                          : "Resuming " + folder->path() +
                                                ": it has no usable checkpoint, so training starts over");
}

// A finished run has nothing to resume, and a running one is another process's (the index says which).
void RunOpening::refuseFinishedOrRunning() {
  if (fs::exists(folder->file("summary.json"))) {
    std::ifstream in(folder->file("summary.json"));
    const nlohmann::json previous = nlohmann::json::parse(in, nullptr, false);
    if (previous.is_object()) {
      const RunSummary before = summaryFromJson(previous);
      if (before.status == RunStatus::Completed || before.status == RunStatus::EarlyStopped) {
        throw UserError("Run " + folder->path() + " already finished (" + wordString(before.status) + ").",
                        "Start a new run with `workbench-cli train`.");
      }
      wall_before = before.wall_s;
    }
  }
  if (const auto record = findRun(runs_dir, absoluteFolder(folder->path()))) {
    if (record->status == RunIndexStatus::Running) {
      throw UserError("Run " + folder->path() + " is still running (process " + std::to_string(record->pid) +
                          (record->host.empty() ? "" : " on " + record->host) + ").",
                      "Stop it first (Ctrl-C or kill -TERM " + std::to_string(record->pid) +
                          "); it writes a checkpoint, then resume it.");
    }
  }
}

// The experiment and the number of ranks the checkpoint was written with: a change is refused unless the
// resume is forced, and said when it is.
void RunOpening::refuseChangesSinceCheckpoint(const ResumeRequest& resume,
                                              const std::optional<ProcessLaunch>& launch) {
  // The compress section does not change training: editing it (the window's Compress dialogs do)
  // must not block resuming the training.
  // A checkpoint from before a key existed ("task") trained with its default: not a change.
  auto changes = changesSinceSaved(checkpoint->contents.meta.value("experiment", nlohmann::json::object()),
                                   m_experiment);
  changes.erase(std::remove_if(changes.begin(), changes.end(),
                               [](const ExperimentChange& c) { return c.path.rfind("compress", 0) == 0; }),
                changes.end());
  // Data parallel: the number of ranks is part of the data order (each rank's shard).
  const int64_t saved_world = checkpoint->contents.meta.value("world_size", int64_t{1});
  const int64_t world_now =
      launch ? launch->world_size : static_cast<int64_t>(m_experiment.train.devices.size());
  std::string world_change;
  if (saved_world != world_now) {
    world_change = "the checkpoint was written by " + std::to_string(saved_world) +
                   " rank(s), this resume has " + std::to_string(world_now);
  }
  if ((!changes.empty() || !world_change.empty()) && !resume.force) {
    std::string what;
    if (!changes.empty())
      what =
          "The run's experiment.json changed since its checkpoint was written: " + describeChanges(changes);
    if (!world_change.empty())
      what += (what.empty() ? "The number of ranks differs: " : "; and ") + world_change;
    throw ExperimentChangedError(
        what + ".",
        "Undo the change, or resume anyway (workbench-cli resume --force; in the window, Resume Anyway): "
        "training continues from the checkpoint's step with the new values" +
            std::string(world_change.empty() ? "" : " and the data sharded for the new number of ranks") +
            ".");
  }
  if (!changes.empty())
    m_events.log(LogLevel::Warning,
                 "Resuming with a changed experiment (forced): " + describeChanges(changes));
  if (!world_change.empty()) {
    m_events.log(LogLevel::Warning,
                 "Resuming on another number of ranks (forced): " + world_change +
                     ". Training continues at the checkpoint's step; the rest of the epoch "
                     "is sharded anew, so the samples seen differ from an uninterrupted run.");
  }
}

void RunOpening::create() {
  // The folder after the experiment's name, or its model and data when it has none
  // ("<date>-cnn-fashion-mnist").
  folder = std::make_unique<RunFolder>(
      RunFolder::create(m_experiment.output.runs_dir, experimentRunName(m_experiment), m_experiment.task));
  folder->writeExperiment(experimentToJson(m_experiment));
  folder_owned = true;
  m_events.setRecorder(folder.get());
  m_result.run_dir = folder->path();
  runs_dir = m_experiment.output.runs_dir;
  m_events.log(LogLevel::Info, "Run folder: " + folder->path());
}

}  // namespace wb
