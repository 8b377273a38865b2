// `workbench-cli queue`: experiments queued in a runs folder's index (workbench/run_queue.h), edited, listed,
// worked (queue_worker.h), and `queue exec ID`, the worker's child that trains one entry.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "experiment_args.h"
#include "queue_worker.h"
#include "run_session.h"
#include "workbench/errors.h"
#include "workbench/run_queue.h"
#include "workbench/run_state.h"
#include "workbench/sweep_rungs.h"
#include "workbench/sweep_runs.h"
#include "workbench/training_run.h"

namespace wb::cli {
namespace {

namespace fs = std::filesystem;

const char* kQueueHelp =
    "usage: workbench-cli queue add [EXPERIMENT.json | --example NAME] [--set key=value ...] [--label L] "
    "[--hold]\n"
    "       workbench-cli queue list [--runs-dir DIR] [--json]\n"
    "       workbench-cli queue remove|hold|release ID... [--runs-dir DIR]\n"
    "       workbench-cli queue move ID (--before ID | --last) [--runs-dir DIR]\n"
    "       workbench-cli queue run [--runs-dir DIR] [--until-empty] [--devices cuda:0,cuda:1 | cpu,cpu]\n"
    "\n"
    "A queue of experiments in a runs folder, kept in its index (DIR/runs.sqlite) beside the runs: it "
    "outlives\n"
    "the process that works it. `add` checks the experiment and queues it in its output.runs_dir; `run` "
    "trains\n"
    "the queued entries one after another, each a normal run in the runs list (its folder reruns and "
    "resumes\n"
    "alone), each in a child process of its own. A worker killed mid-run leaves its entry to the next "
    "worker,\n"
    "which resumes that run from its checkpoint; two workers on one queue never train the same entry.\n"
    "\n"
    "  --runs-dir DIR  the runs folder (default: runs; `add` uses the experiment's output.runs_dir)\n"
    "  --label L       the name the list shows (default: the experiment's name, or its file's)\n"
    "  --hold          add it held: no worker takes it until `queue release ID`\n"
    "  --until-empty   `run` ends when nothing is queued (otherwise it waits for more, polling every "
    "second)\n"
    "  --devices LIST  `run` trains one entry per slot at once: cuda:N a GPU each (the entry's process sees "
    "it\n"
    "                  alone, as cuda:0), cpu a share of the CPU cores each (cpu,cpu: half the cores each,\n"
    "                  its threads pinned to them). Default: one entry at a time, on the devices it names\n"
    "  --json          `list` prints a JSON array\n"
    "\n"
    "States: queued, held, running, done, failed (with why; `release` queues it again). Ctrl-C in `run` "
    "stops\n"
    "the entry in training after its step with a checkpoint and queues it again: it resumes next time.\n"
    "\n"
    "Examples:\n"
    "  workbench-cli queue add my.json --set optimizer.name=adam  --label adam\n"
    "  workbench-cli queue add my.json --set optimizer.name=sgd   --label sgd-momentum\n"
    "  workbench-cli queue run --until-empty\n"
    "  workbench-cli queue list\n"
    "\n"
    "Exit status: 0 done, 2 bad input, 1 failure, 130/143 when `run` is stopped by SIGINT/SIGTERM.\n";

bool parseId(const std::string& text, int64_t& id) {
  try {
    size_t used = 0;
    id = std::stoll(text, &used);
    return used == text.size() && id > 0;
  } catch (const std::exception&) {
    return false;
  }
}

nlohmann::json entryToJson(const QueueEntry& e) {
  return {{"id", e.id},
          {"position", e.position},
          {"state", e.state},
          {"label", e.label},
          {"cwd", e.cwd},
          {"run_folder", e.run_folder},
          {"message", e.message},
          {"added_at", e.added_at},
          {"started_at", e.started_at},
          {"ended_at", e.ended_at},
          {"owner_pid", e.owner_pid},
          {"attempts", e.attempts}};
}

int addEntry(const std::vector<std::string>& args) {
  ExperimentArgs exp_args;
  std::vector<std::string> rest;
  if (!parseExperimentArgs(args, exp_args, rest, {"--label"})) return kExitBadInput;
  QueueAddition addition;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == "--label" && i + 1 < rest.size()) {
      addition.label = rest[++i];
    } else if (rest[i] == "--hold") {
      addition.held = true;
    } else {
      std::cerr << "error: unknown argument '" << rest[i] << "' for queue add\n\n" << kQueueHelp;
      return kExitBadInput;
    }
  }
  // Checked now, with the engine's checks, so that a bad experiment is refused here, not when its turn comes.
  const std::optional<Experiment> experiment = resolveExperiment(exp_args);
  if (!experiment) return kExitBadInput;
  addition.experiment = experimentToJson(*experiment).dump(2);
  addition.cwd = fs::current_path().string();
  if (addition.label.empty()) {
    addition.label = !experiment->name.empty()   ? experiment->name
                     : !exp_args.example.empty() ? exp_args.example
                     : !exp_args.file.empty()    ? fs::path(exp_args.file).stem().string()
                                                 : "default";
  }
  const std::string runs_dir = fs::absolute(experiment->output.runs_dir).lexically_normal().string();
  const int64_t id = addToQueue(runs_dir, addition);
  std::cout << "Queued " << id << " (" << addition.label << ") in " << runs_dir
            << (addition.held ? ", held" : "") << "\n";
  return kExitOk;
}

int listEntries(const std::string& runs_dir, bool json) {
  const std::vector<QueueEntry> entries = listQueue(runs_dir);
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const QueueEntry& e : entries) out.push_back(entryToJson(e));
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  if (entries.empty()) {
    std::cout << "The queue in " << runs_dir << " is empty (`workbench-cli queue add EXPERIMENT.json`).\n";
    return kExitOk;
  }
  std::printf("%-5s %-8s %-24s %-9s %-20s %s\n", "id", "state", "label", "attempts", "started",
              "run / message");
  for (const QueueEntry& e : entries) {
    const std::string detail = e.message.empty()
                                   ? e.run_folder
                                   : (e.run_folder.empty() ? e.message : e.run_folder + " — " + e.message);
    std::printf("%-5lld %-8s %-24s %-9lld %-20s %s\n", static_cast<long long>(e.id), e.state.c_str(),
                e.label.c_str(), static_cast<long long>(e.attempts), e.started_at.c_str(), detail.c_str());
  }
  return kExitOk;
}

// The judge of a sweep trial whose sweep stops poor trials early (none otherwise): at each rung epoch (or the
// first validation after it, with train.eval_every_epochs above 1) the epoch's validation metric is recorded
// and set against the other trials' at that rung.
ValidationJudge sweepTrialJudge(const std::string& runs_dir, const QueueEntry& entry,
                                const std::shared_ptr<std::string>& stop_reason) {
  if (entry.sweep.empty()) return {};
  const std::optional<SweepEarlyStopping> rule = sweepRule(runs_dir, entry.sweep);
  if (!rule) return {};
  const nlohmann::json doc = nlohmann::json::parse(entry.experiment, nullptr, false);
  const ParseResult parsed = parseExperiment(doc.is_discarded() ? nlohmann::json::object() : doc);
  if (!parsed.ok()) return {};
  const std::vector<int64_t> rungs = sweepRungEpochs(*rule, parsed.experiment.train.epochs);
  const int64_t every = std::max<int64_t>(1, parsed.experiment.train.eval_every_epochs);
  const bool maximize = entry.sweep_metric.find("accuracy") != std::string::npos;
  const std::string metric = maximize ? "val_accuracy" : "val_loss";
  const std::string sweep = entry.sweep;
  const int64_t trial = entry.id;
  const double eta = rule->eta;
  return [=](const EpochMetrics& m) {
    ValidationVerdict verdict;
    for (const int64_t rung : rungs) {
      if (rung > m.epoch || rung <= m.epoch - every) continue;
      const double value = maximize ? m.val_accuracy : m.val_loss;
      const RungDecision d = judgeSweepRung(runs_dir, sweep, trial, rung, metric, maximize, value, eta);
      verdict.note = d.reason + ".";
      if (d.stop) {
        verdict.stop = true;
        *stop_reason = d.reason;
      }
      break;
    }
    return verdict;
  };
}

// The trial's process: trains (or resumes) a claimed entry and says how it ended.
int execEntry(const std::string& runs_dir, int64_t id) {
  const QueueEntry entry = ownQueueEntry(runs_dir, id, ::getpid());
  const bool resume = !entry.run_folder.empty() && fs::exists(entry.run_folder + "/experiment.json");
  if (resume) {
    // Its process ended after the run did but before it said so: nothing is left to train.
    const RunState state = readRunState(entry.run_folder);
    if (state.finished()) {
      endQueueEntry(runs_dir, id, "done", fs::absolute(entry.run_folder).lexically_normal().string(),
                    state.describe());
      std::cout << "The run in " << entry.run_folder << " is " << state.describe() << ".\n";
      return kExitOk;
    }
  }
  std::optional<Experiment> experiment;
  if (!resume) {
    const nlohmann::json doc = nlohmann::json::parse(entry.experiment, nullptr, false);
    const ParseResult parsed = parseExperiment(doc.is_discarded() ? nlohmann::json::object() : doc);
    if (doc.is_discarded() || !parsed.ok()) {
      const std::string why = doc.is_discarded() ? "its experiment is not JSON" : formatIssues(parsed.issues);
      endQueueEntry(runs_dir, id, "failed", "", "the experiment is not valid: " + why);
      printError("Queue entry " + std::to_string(id) + ": the experiment is not valid: " + why,
                 "Fix the experiment and queue it again.");
      return kExitBadInput;
    }
    experiment = parsed.experiment;
    if (const char* slot = std::getenv(kQueueSlotVariable); slot && *slot) {
      // A GPU slot: this process sees that GPU alone, as cuda:0. An experiment for one GPU trains on it; one
      // for several GPUs needs a worker without GPU slots.
      std::vector<std::string>& devices = experiment->train.devices;
      const bool one_gpu = devices.size() == 1 && devices.front().rfind("cuda", 0) == 0;
      if (devices.size() > 1) {
        const std::string why = "it trains on " + std::to_string(devices.size()) +
                                " devices, and a worker's GPU slot gives it one (" + slot + ")";
        endQueueEntry(runs_dir, id, "failed", "", why);
        printError("Queue entry " + std::to_string(id) + ": " + why,
                   "Release it for a worker started without --devices (`workbench-cli queue release " +
                       std::to_string(id) + "`).");
        return kExitBadInput;
      }
      if (one_gpu && devices.front() != "cuda:0") {
        std::cout << "Slot " << slot << ": the experiment's " << devices.front()
                  << " is this slot's GPU, cuda:0 here\n";
        devices.front() = "cuda:0";
      }
    }
  }
  SessionOptions options;
  options.epochs = experiment && experiment->train.epochs > 0 ? experiment->train.epochs : 1;
  // A trial of a sweep that stops poor trials early is judged at its rungs (against the other trials' results
  // in the index); what stopped it becomes the entry's message.
  auto stop_reason = std::make_shared<std::string>();
  ValidationJudge judge = sweepTrialJudge(runs_dir, entry, stop_reason);
  std::string state = "failed", message, folder;
  options.on_end = [&](const RunSummary& summary, const std::optional<RunError>& error) {
    folder = summary.run_dir;
    switch (summary.status) {
      case RunStatus::Completed:
        state = "done";
        break;
      case RunStatus::EarlyStopped:
        state = "done", message = stop_reason->empty() ? "stopped early" : "stopped at the " + *stop_reason;
        break;
      case RunStatus::Interrupted:
        state = "queued", message = "interrupted: it resumes from its checkpoint";
        break;
      case RunStatus::Failed:
        state = "failed", message = error ? error->message : "the run failed";
        break;
    }
  };
  const int status = runSession(
      [&](TrainingRun::EventSink sink) {
        auto run =
            resume ? std::make_unique<TrainingRun>(ResumeRequest{entry.run_folder, false}, std::move(sink))
                   : std::make_unique<TrainingRun>(*experiment, std::move(sink));
        if (judge) run->setValidationJudge(judge);
        if (!entry.sweep.empty()) run->setRunTags({sweepTag(entry.sweep)});
        return run;
      },
      options);
  if (folder.empty()) folder = runFolderOfProcess(runs_dir, ::getpid());
  if (!folder.empty())
    folder = fs::absolute(folder).lexically_normal().string();  // we run in the entry's cwd
  endQueueEntry(runs_dir, id, state, folder, message);
  return status;
}

}  // namespace

int queueCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kQueueHelp;
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const std::string action = args[0];
  const std::vector<std::string> tail(args.begin() + 1, args.end());
  for (const std::string& a : tail) {
    if (a == "--help" || a == "-h") {
      std::cout << kQueueHelp;
      return kExitOk;
    }
  }
  try {
    if (action == "add") return addEntry(tail);
    std::string runs_dir = "runs";
    bool json = false, until_empty = false, last = false;
    std::string devices;
    int64_t before = 0;
    std::vector<int64_t> ids;
    for (size_t i = 0; i < tail.size(); ++i) {
      const std::string& a = tail[i];
      int64_t id = 0;
      if (a == "--runs-dir" && i + 1 < tail.size()) {
        runs_dir = tail[++i];
      } else if (a == "--json") {
        json = true;
      } else if (a == "--until-empty") {
        until_empty = true;
      } else if (a == "--devices" && i + 1 < tail.size()) {
        devices = tail[++i];
      } else if (a == "--last") {
        last = true;
      } else if (a == "--before" && i + 1 < tail.size() && parseId(tail[i + 1], before)) {
        ++i;
      } else if (parseId(a, id)) {
        ids.push_back(id);
      } else {
        std::cerr << "error: unknown argument '" << a << "' for queue " << action << "\n\n" << kQueueHelp;
        return kExitBadInput;
      }
    }
    runs_dir = fs::absolute(runs_dir).lexically_normal().string();
    const bool takes_ids =
        action == "remove" || action == "hold" || action == "release" || action == "move" || action == "exec";
    if (takes_ids && ids.empty()) {
      std::cerr << "error: queue " << action
                << " needs an entry id (`workbench-cli queue list` shows them)\n";
      return kExitBadInput;
    }
    if (action == "list") return listEntries(runs_dir, json);
    if (action == "run") {
      std::vector<QueueSlot> slots;
      if (!parseQueueSlots(devices, slots)) return kExitBadInput;
      return runQueueWorker(runs_dir, until_empty, slots);
    }
    if (action == "exec") return execEntry(runs_dir, ids.front());
    if (action == "move") {
      if (ids.size() != 1 || (before == 0) == !last) {
        std::cerr << "error: queue move takes one ID and --before ID or --last\n";
        return kExitBadInput;
      }
      moveInQueue(runs_dir, ids.front(), before);
      std::cout << "Moved " << ids.front() << (last ? " to the end" : " before " + std::to_string(before))
                << "\n";
      return kExitOk;
    }
    for (const int64_t id : ids) {
      if (action == "remove") {
        removeFromQueue(runs_dir, id);
        std::cout << "Removed " << id << "\n";
      } else if (action == "hold" || action == "release") {
        holdInQueue(runs_dir, id, action == "hold");
        std::cout << (action == "hold" ? "Held " : "Released ") << id << "\n";
      } else {
        std::cerr << "error: unknown queue action '" << action << "'\n\n" << kQueueHelp;
        return kExitBadInput;
      }
    }
    return kExitOk;
  } catch (const UserError& e) {
    printError(e.what(), e.hint());
    return kExitBadInput;
  } catch (const std::exception& e) {
    printError(std::string("queue ") + action + " failed: " + e.what(), "");
    return kExitFailure;
  }
}

}  // namespace wb::cli
