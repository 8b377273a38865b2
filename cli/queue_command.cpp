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

nlohmann::json entryToJson(const QueueEntry& e) {
  return {{"id", e.id},
          {"position", e.position},
          {"state", wordString(e.state)},
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

struct QueueOptions {
  ExperimentArgs experiment;  // add
  QueueAddition addition;     // add: --label, --hold
  std::string runs_dir = "runs";
  bool json = false, until_empty = false, last = false;
  std::string devices;
  int64_t before = 0;
  std::vector<int64_t> ids;

  std::string runsDir() const { return fs::absolute(runs_dir).lexically_normal().string(); }
};

int addEntry(QueueOptions o) {
  ExperimentArgs& exp_args = o.experiment;
  QueueAddition& addition = o.addition;
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
    std::printf("%-5lld %-8s %-24s %-9lld %-20s %s\n", static_cast<long long>(e.id),
                wordString(e.state).c_str(), e.label.c_str(), static_cast<long long>(e.attempts),
                e.started_at.c_str(), detail.c_str());
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
  const bool maximize = entry.sweep_metric && higherIsBetter(*entry.sweep_metric);
  const ValidationMetric metric = maximize ? ValidationMetric::ValAccuracy : ValidationMetric::ValLoss;
  const std::string sweep = entry.sweep;
  const int64_t trial = entry.id;
  const double eta = rule->eta;
  return [=](const EpochMetrics& m) {
    ValidationVerdict verdict;
    for (const int64_t rung : rungs) {
      if (rung > m.epoch || rung <= m.epoch - every) continue;
      const double value = maximize ? figureNamed(m.val_figures, "accuracy", -1) : m.val_loss;
      const RungDecision d = judgeSweepRung(runs_dir, sweep, trial, rung, metric, value, eta);
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

// A new entry's experiment, in a GPU slot moved onto the slot's GPU; nullopt (the entry marked failed, and
// said) when it cannot train here.
std::optional<Experiment> entryExperiment(const std::string& runs_dir, const QueueEntry& entry) {
  const int64_t id = entry.id;
  const nlohmann::json doc = nlohmann::json::parse(entry.experiment, nullptr, false);
  const ParseResult parsed = parseExperiment(doc.is_discarded() ? nlohmann::json::object() : doc);
  if (doc.is_discarded() || !parsed.ok()) {
    const std::string why = doc.is_discarded() ? "its experiment is not JSON" : formatIssues(parsed.issues);
    endQueueEntry(runs_dir, id, QueueState::Failed, "", "the experiment is not valid: " + why);
    printError("Queue entry " + std::to_string(id) + ": the experiment is not valid: " + why,
               "Fix the experiment and queue it again.");
    return std::nullopt;
  }
  Experiment experiment = parsed.experiment;
  if (const char* slot = std::getenv(kQueueSlotVariable); slot && *slot) {
    // A GPU slot: this process sees that GPU alone, as cuda:0. An experiment for one GPU trains on it; one
    // for several GPUs needs a worker without GPU slots.
    std::vector<std::string>& devices = experiment.train.devices;
    const bool one_gpu = devices.size() == 1 && devices.front().rfind("cuda", 0) == 0;
    if (devices.size() > 1) {
      const std::string why = "it trains on " + std::to_string(devices.size()) +
                              " devices, and a worker's GPU slot gives it one (" + slot + ")";
      endQueueEntry(runs_dir, id, QueueState::Failed, "", why);
      printError("Queue entry " + std::to_string(id) + ": " + why,
                 "Release it for a worker started without --devices (`workbench-cli queue release " +
                     std::to_string(id) + "`).");
      return std::nullopt;
    }
    if (one_gpu && devices.front() != "cuda:0") {
      std::cout << "Slot " << slot << ": the experiment's " << devices.front()
                << " is this slot's GPU, cuda:0 here\n";
      devices.front() = "cuda:0";
    }
  }
  return experiment;
}

// How an entry's run ended, as the queue records it.
struct EntryEnd {
  QueueState state = QueueState::Failed;
  std::string message, folder;
  void record(const RunSummary& summary, const std::optional<RunError>& error,
              const std::string& stop_reason) {
    folder = summary.run_dir;
    switch (summary.status) {
      case RunStatus::Completed:
        state = QueueState::Done;
        break;
      case RunStatus::EarlyStopped:
        state = QueueState::Done,
        message = stop_reason.empty() ? "stopped early" : "stopped at the " + stop_reason;
        break;
      case RunStatus::Interrupted:
        state = QueueState::Queued, message = "interrupted: it resumes from its checkpoint";
        break;
      case RunStatus::Failed:
        state = QueueState::Failed, message = error ? error->message : "the run failed";
        break;
    }
  }
};

// The trial's process: trains (or resumes) a claimed entry and says how it ended.
int execEntry(const std::string& runs_dir, int64_t id) {
  const QueueEntry entry = ownQueueEntry(runs_dir, id, ::getpid());
  const bool resume = !entry.run_folder.empty() && fs::exists(entry.run_folder + "/experiment.json");
  if (resume) {
    // Its process ended after the run did but before it said so: nothing is left to train.
    const RunState state = readRunState(entry.run_folder);
    if (state.finished()) {
      endQueueEntry(runs_dir, id, QueueState::Done,
                    fs::absolute(entry.run_folder).lexically_normal().string(), state.describe());
      std::cout << "The run in " << entry.run_folder << " is " << state.describe() << ".\n";
      return kExitOk;
    }
  }
  std::optional<Experiment> experiment;
  if (!resume) {
    experiment = entryExperiment(runs_dir, entry);
    if (!experiment) return kExitBadInput;
  }
  SessionOptions options;
  options.epochs = experiment && experiment->train.epochs > 0 ? experiment->train.epochs : 1;
  // A trial of a sweep that stops poor trials early is judged at its rungs (against the other trials' results
  // in the index); what stopped it becomes the entry's message.
  auto stop_reason = std::make_shared<std::string>();
  ValidationJudge judge = sweepTrialJudge(runs_dir, entry, stop_reason);
  EntryEnd end;
  options.on_end = [&](const RunSummary& summary, const std::optional<RunError>& error) {
    end.record(summary, error, *stop_reason);
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
  if (end.folder.empty()) end.folder = runFolderOfProcess(runs_dir, ::getpid());
  if (!end.folder.empty())
    end.folder = fs::absolute(end.folder).lexically_normal().string();  // we run in the entry's cwd
  endQueueEntry(runs_dir, id, end.state, end.folder, end.message);
  return status;
}

int moveEntry(const QueueOptions& o) {
  if ((o.before == 0) == !o.last) {
    printError("queue move takes --before ID or --last", "e.g. `workbench-cli queue move 4 --before 2`.");
    return kExitBadInput;
  }
  moveInQueue(o.runsDir(), o.ids.front(), o.before);
  std::cout << "Moved " << o.ids.front() << (o.last ? " to the end" : " before " + std::to_string(o.before))
            << "\n";
  return kExitOk;
}

int editEntries(const QueueOptions& o, const std::string& action) {
  for (const int64_t id : o.ids) {
    if (action == "remove") {
      removeFromQueue(o.runsDir(), id);
      std::cout << "Removed " << id << "\n";
    } else {
      holdInQueue(o.runsDir(), id, action == "hold");
      std::cout << (action == "hold" ? "Held " : "Released ") << id << "\n";
    }
  }
  return kExitOk;
}

int runWorker(const QueueOptions& o) {
  std::vector<QueueSlot> slots;
  if (!parseQueueSlots(o.devices, slots)) return kExitBadInput;
  return runQueueWorker(o.runsDir(), o.until_empty, slots);
}

CLI::Option* addRunsDir(CLI::App* action, QueueOptions& o) {
  return action->add_option("--runs-dir", o.runs_dir, "the runs folder (default: runs)")->type_name("DIR");
}

// The entry ids of `action`: one (ID) or several (ID...).
void addIds(CLI::App* action, QueueOptions& o, bool several) {
  action
      ->add_option("ID", o.ids,
                   several ? "the entries (`workbench-cli queue list` shows their ids)"
                           : "the entry (`workbench-cli queue list` shows its id)")
      ->required()
      ->expected(1, several ? 1 << 20 : 1)
      ->check(takes("an entry id, a whole number from `workbench-cli queue list`", wholeNumberFrom(1)));
  addRunsDir(action, o);
}

void addQueueActions(CLI::App* queue, const std::shared_ptr<QueueOptions>& o) {
  CLI::App* add = addCommand(*queue, "add", "check an experiment and queue it in its output.runs_dir");
  addExperimentArgs(add, o->experiment);
  add->add_option("--label", o->addition.label,
                  "the name the list shows (default: the experiment's name, or its file's)")
      ->type_name("LABEL");
  add->add_flag("--hold", o->addition.held, "add it held: no worker takes it until `queue release ID`");
  setAction(add, [o] { return addEntry(*o); });
  CLI::App* list = addCommand(*queue, "list", "each entry's state and run folder");
  addRunsDir(list, *o);
  list->add_flag("--json", o->json, "print a JSON array");
  setAction(list, [o] { return listEntries(o->runsDir(), o->json); });
  CLI::App* run = addCommand(*queue, "run", "train the queued entries, one after another (or one per slot)");
  addRunsDir(run, *o);
  run->add_flag("--until-empty", o->until_empty,
                "end when nothing is queued (otherwise wait for more, polling every second)");
  run->add_option(
         "--devices", o->devices,
         "one entry per slot at once: cuda:N a GPU each (the entry's process sees it alone, as cuda:0), cpu "
         "a "
         "share of the CPU cores each (cpu,cpu: half the cores each, its threads pinned to them). Default: "
         "one entry at a time, on the devices it names")
      ->type_name("LIST");
  setAction(run, [o] { return runWorker(*o); });
  for (const char* name : {"remove", "hold", "release"}) {
    const std::string action = name;
    CLI::App* edit = addCommand(*queue, action,
                                action == "remove" ? "take entries off the queue"
                                : action == "hold" ? "keep entries from being trained until released"
                                                   : "queue held or failed entries again");
    addIds(edit, *o, true);
    setAction(edit, [o, action] { return editEntries(*o, action); });
  }
  CLI::App* move = addCommand(*queue, "move", "move an entry before another, or to the end");
  addIds(move, *o, false);
  move->add_option("--before", o->before, "the entry it goes before")
      ->type_name("ID")
      ->check(takes("an entry id, a whole number from `workbench-cli queue list`", wholeNumberFrom(1)));
  move->add_flag("--last", o->last, "to the end of the queue");
  setAction(move, [o] { return moveEntry(*o); });
  // The worker's child: trains one claimed entry (queue_worker.cpp starts it).
  CLI::App* exec = addCommand(*queue, "exec", "train one claimed entry (the worker's child)")->group("");
  addIds(exec, *o, false);
  setAction(exec, [o] { return execEntry(o->runsDir(), o->ids.front()); });
  setAction(addCommand(*queue, "help", "this help")->group(""), [queue] {
    std::cout << helpText(*queue);
    return static_cast<int>(kExitOk);
  });
}

}  // namespace

void addQueueCommand(CLI::App& program) {
  CLI::App* queue = addCommand(
      program, "queue",
      "queue experiments in a runs folder and train them one after another\n"
      "A queue of experiments in a runs folder, kept in its index (DIR/runs.sqlite) beside the runs: it "
      "outlives "
      "the process that works it. `add` checks the experiment and queues it in its output.runs_dir; `run` "
      "trains "
      "the queued entries one after another, each a normal run in the runs list (its folder reruns and "
      "resumes "
      "alone), each in a child process of its own. A worker killed mid-run leaves its entry to the next "
      "worker, "
      "which resumes that run from its checkpoint; two workers on one queue never train the same entry.\n"
      "\n"
      "States: queued, held, running, done, failed (with why; `release` queues it again). Ctrl-C in `run` "
      "stops "
      "the entry in training after its step with a checkpoint and queues it again: it resumes next time.",
      "Examples:\n"
      "  workbench-cli queue add my.json --set optimizer.name=adam  --label adam\n"
      "  workbench-cli queue add my.json --set optimizer.name=sgd   --label sgd-momentum\n"
      "  workbench-cli queue run --until-empty\n"
      "  workbench-cli queue run --until-empty --devices cpu,cpu\n"
      "  workbench-cli queue list\n"
      "  workbench-cli queue move 4 --before 2\n"
      "\n"
      "Exit status: 0 done, 2 bad input, 1 failure, 130/143 when `run` is stopped by SIGINT/SIGTERM.\n");
  queue->require_subcommand(1);
  auto o = std::make_shared<QueueOptions>();
  addQueueActions(queue, o);
}

}  // namespace wb::cli
