// `workbench-cli sweep`: a sweep file's trials planned over an experiment, checked, queued in its runs folder
// as normal runs (workbench/sweep.h, workbench/run_queue.h), worked, and their results compared.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli_commands.h"
#include "experiment_args.h"
#include "queue_worker.h"
#include "run_session.h"
#include "workbench/errors.h"
#include "workbench/run_index.h"
#include "workbench/run_queue.h"
#include "workbench/sweep.h"
#include "workbench/sweep_rungs.h"
#include "workbench/sweep_runs.h"

namespace wb::cli {
namespace {

namespace fs = std::filesystem;

struct SweepOptions {
  ExperimentArgs experiment;  // start
  std::string sweep_file, devices;
  bool run = false;
  std::string runs_dir = "runs", name, write_best;  // show, list
  bool json = false;

  std::string runsDir() const { return fs::absolute(runs_dir).lexically_normal().string(); }
};

int startSweep(const SweepOptions& o) {
  const ExperimentArgs& exp_args = o.experiment;
  const std::string& sweep_file = o.sweep_file;
  const std::string& devices = o.devices;
  const bool run = o.run;
  std::vector<QueueSlot> slots;
  if (!parseQueueSlots(devices, slots)) return kExitBadInput;
  const std::optional<Experiment> experiment = resolveExperiment(exp_args);
  if (!experiment) return kExitBadInput;
  const SweepSpec spec = loadSweepFile(sweep_file);
  const std::vector<SweepTrial> trials = planSweep(experimentToJson(*experiment), spec, checkExperiment);
  const std::string runs_dir = fs::absolute(experiment->output.runs_dir).lexically_normal().string();
  queueSweep(runs_dir, fs::current_path().string(), spec, trials);
  std::cout << "Sweep " << spec.name << ": " << trials.size() << " trials queued in " << runs_dir
            << " (metric " << wordOf(spec.metric) << ", " << (spec.maximize() ? "higher" : "lower")
            << " is better)\n";
  if (spec.early_stopping.enabled()) {
    std::string rungs;
    for (const int64_t epoch : sweepRungEpochs(spec.early_stopping, experiment->train.epochs)) {
      rungs += (rungs.empty() ? "" : ", ") + std::to_string(epoch);
    }
    char eta[32];
    std::snprintf(eta, sizeof(eta), "%g", spec.early_stopping.eta);
    std::cout << "Early stopping: ASHA, the top 1/" << eta
              << " of the trials at each rung go on; rungs at epoch"
              << (rungs.find(',') == std::string::npos ? " " : "s ")
              << (rungs.empty() ? "none (the trials are too short: every trial trains to its end)" : rungs)
              << "\n";
  }
  for (const SweepTrial& trial : trials) {
    std::cout << "  " << trial.label << "  " << describeOverrides(trial.overrides)
              << (trial.problem.empty() ? "" : "  [refused: " + trial.problem + "]") << "\n";
  }
  if (!run) {
    std::cout << "Train them with `workbench-cli queue run --until-empty --runs-dir " << runs_dir << "`.\n";
    return kExitOk;
  }
  const int status = runQueueWorker(runs_dir, /*until_empty=*/true, slots);
  return status;
}

int showSweep(const std::string& runs_dir, const std::string& name, bool json,
              const std::string& write_best) {
  const SweepResults sweep = readSweepResults(runs_dir, name);
  const SweepTrialResult* best = sweep.best >= 0 ? &sweep.trials[sweep.best] : nullptr;
  if (!write_best.empty()) {
    if (!best)
      throw UserError("No trial of sweep " + name + " has finished with its metric yet.",
                      "Wait for the queue.");
    std::ifstream in(best->entry.run_folder + "/experiment.json");
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded())
      throw UserError("Cannot read " + best->entry.run_folder + "/experiment.json.", "");
    std::ofstream(write_best) << doc.dump(2) << "\n";
  }
  if (json) {
    nlohmann::json out = {
        {"sweep", name}, {"metric", wordString(sweep.metric)}, {"compute_s", sweep.compute_s}};
    out["trials"] = nlohmann::json::array();
    for (const SweepTrialResult& t : sweep.trials) {
      out["trials"].push_back(
          {{"label", t.entry.label},
           {"values", t.values},
           {"state", wordString(t.entry.state)},
           {"metric", t.metric >= 0 ? nlohmann::json(t.metric) : nlohmann::json()},
           {"wall_s", t.run && t.run->wall_s > 0 ? nlohmann::json(t.run->wall_s) : nlohmann::json()},
           {"run_folder", t.run ? t.run->folder : t.entry.run_folder},
           {"message", t.entry.message},
           {"best", best == &t}});
    }
    out["best"] = best ? nlohmann::json(best->entry.label) : nlohmann::json();
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("Sweep %s (%s, %s is better):\n", name.c_str(), wordString(sweep.metric).c_str(),
              sweep.maximize ? "higher" : "lower");
  std::printf("  %-22s %-9s %-8s %9s  %s\n", "trial", "metric", "state", "time", "values");
  for (const SweepTrialResult& t : sweep.trials) {
    char metric_text[16] = "-";
    if (t.metric >= 0) std::snprintf(metric_text, sizeof(metric_text), "%.4f", t.metric);
    char time_text[16] = "-";
    if (t.run && t.run->wall_s > 0)
      std::snprintf(time_text, sizeof(time_text), t.run->wall_s < 10 ? "%.2f s" : "%.0f s", t.run->wall_s);
    std::printf(
        "%s %-22s %-9s %-8s %9s  %s%s\n", best == &t ? "*" : " ", t.entry.label.c_str(), metric_text,
        wordString(t.status()).c_str(), time_text, describeOverrides(t.values).c_str(),
        t.entry.state == QueueState::Failed || t.stopped ? ("  (" + t.entry.message + ")").c_str() : "");
  }
  std::printf("compute: %.1f s of training in all", sweep.compute_s);
  if (best)
    std::printf("; best: %s, %s %.4f", best->entry.label.c_str(), wordString(sweep.metric).c_str(),
                best->metric);
  std::printf("\n");
  return kExitOk;
}

int listSweeps(const std::string& runs_dir) {
  std::map<std::string, std::map<std::string, int>> sweeps;
  for (const QueueEntry& e : listQueue(runs_dir)) {
    if (!e.sweep.empty()) ++sweeps[e.sweep][wordString(e.state)];
  }
  if (sweeps.empty()) {
    std::cout << "No sweeps in " << runs_dir
              << " (`workbench-cli sweep start EXPERIMENT.json --sweep SWEEP.json`).\n";
    return kExitOk;
  }
  for (const auto& [name, states] : sweeps) {
    std::string counts;
    for (const auto& [state, n] : states)
      counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + state;
    std::cout << name << ": " << counts << "\n";
  }
  return kExitOk;
}

void addSweepActions(CLI::App* sweep, const std::shared_ptr<SweepOptions>& o) {
  CLI::App* start = addCommand(
      *sweep, "start",
      "plan a sweep file's trials over an experiment, check them and queue them (--run: train them)");
  addExperimentArgs(start, o->experiment);
  start->add_option("--sweep", o->sweep_file, "the sweep file")->type_name("SWEEP.json")->required();
  start->add_flag("--run", o->run,
                  "train the queue after queueing (as `workbench-cli queue run --until-empty`)");
  start
      ->add_option("--devices", o->devices,
                   "with --run: one trial per slot at once (as `queue run --devices`)")
      ->type_name("LIST");
  setAction(start, [o] { return startSweep(*o); });
  CLI::App* show = addCommand(*sweep, "show", "the trials compared, the best marked *");
  show->add_option("NAME", o->name, "the sweep's name (`workbench-cli sweep list` shows them)")->required();
  show->add_option("--runs-dir", o->runs_dir, "the runs folder (default: runs)")->type_name("DIR");
  show->add_flag("--json", o->json, "print JSON");
  show->add_option("--write-best", o->write_best, "write the best trial's experiment.json there")
      ->type_name("FILE");
  setAction(show, [o] { return showSweep(o->runsDir(), o->name, o->json, o->write_best); });
  CLI::App* list = addCommand(*sweep, "list", "the sweeps of a runs folder, with their trials' states");
  list->add_option("--runs-dir", o->runs_dir, "the runs folder (default: runs)")->type_name("DIR");
  setAction(list, [o] { return listSweeps(o->runsDir()); });
  setAction(addCommand(*sweep, "help", "this help")->group(""), [sweep] {
    std::cout << helpText(*sweep);
    return static_cast<int>(kExitOk);
  });
}

}  // namespace

void addSweepCommand(CLI::App& program) {
  CLI::App* sweep = addCommand(
      program, "sweep",
      "try several values of an experiment's keys as queued runs, and compare them\n"
      "Tries several values of an experiment's keys and compares the results. `start` plans the trials of "
      "the "
      "sweep file over the experiment, checks every key and value (an unknown key or a value the key does "
      "not "
      "take refuses the sweep before anything is queued), and queues each trial as a normal run in the "
      "experiment's runs folder, named SWEEP-tNN; `--run` then trains the queue (as `workbench-cli queue run "
      "--until-empty`). A combination the engine's checks refuse is queued as failed with its reason; the "
      "others "
      "still run. `show` prints the trials with their values, the metric, state and duration, the best one "
      "marked *; `--write-best FILE` writes the best trial's experiment (train it, or edit it further).\n"
      "\n"
      "The sweep file (lists of values make a grid; a range {min, max, scale} a seeded random search):\n"
      "  {\"name\": \"optimizers\", \"trials\": 8, \"seed\": 1, \"metric\": \"best_val_accuracy\",\n"
      "   \"keys\": {\"optimizer.name\": [\"adam\", \"sgd\", \"adamw\"],\n"
      "            \"optimizer.lr\": {\"min\": 0.0001, \"max\": 0.1, \"scale\": \"log\"}}}\n"
      "trials: how many (a grid without it: every combination; with fewer: a seeded subset); metric: "
      "best_val_accuracy (default), best_val_loss, test_accuracy or test_loss. "
      "\"early_stopping\": {\"rule\": \"asha\", \"eta\": 3, \"grace_epochs\": 1} stops poor trials early "
      "(ASHA, "
      "asynchronous successive halving): at epochs grace, grace*eta, grace*eta^2, ... a trial's validation "
      "(val_accuracy, or val_loss for a loss metric) is set against the other trials' at that epoch, and it "
      "trains on only when among the top 1/eta of them; the decision and its reason go to the trial's log.",
      "Examples:\n"
      "  workbench-cli sweep start my.json --sweep optimizers.json --run\n"
      "  workbench-cli sweep show optimizers\n"
      "  workbench-cli sweep show optimizers --write-best best.json && workbench-cli train best.json\n"
      "\n"
      "Exit status: 0 done, 2 bad input (nothing queued), 1 failure.\n");
  sweep->require_subcommand(1);
  auto o = std::make_shared<SweepOptions>();
  addSweepActions(sweep, o);
}

}  // namespace wb::cli
