// `workbench-cli sweep`: a sweep file's trials planned over an experiment, checked, queued in its runs folder as
// normal runs (workbench/sweep.h, workbench/run_queue.h), worked, and their results compared.
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

namespace wb::cli {
namespace {

namespace fs = std::filesystem;

const char* kSweepHelp =
    "usage: workbench-cli sweep start [EXPERIMENT.json | --example NAME] --sweep SWEEP.json [--set key=value ...]\n"
    "                                 [--run]\n"
    "       workbench-cli sweep show NAME [--runs-dir DIR] [--json] [--write-best FILE]\n"
    "       workbench-cli sweep list [--runs-dir DIR]\n"
    "\n"
    "Tries several values of an experiment's keys and compares the results. `start` plans the trials of the\n"
    "sweep file over the experiment, checks every key and value (an unknown key or a value the key does not take\n"
    "refuses the sweep before anything is queued), and queues each trial as a normal run in the experiment's\n"
    "runs folder, named SWEEP-tNN; `--run` then trains the queue (as `workbench-cli queue run --until-empty`).\n"
    "A combination the engine's checks refuse is queued as failed with its reason; the others still run.\n"
    "`show` prints the trials with their values, the metric, state and duration, the best one marked *;\n"
    "`--write-best FILE` writes the best trial's experiment (train it, or edit it further).\n"
    "\n"
    "The sweep file (lists of values make a grid; a range {min, max, scale} a seeded random search):\n"
    "  {\"name\": \"optimizers\", \"trials\": 8, \"seed\": 1, \"metric\": \"best_val_accuracy\",\n"
    "   \"keys\": {\"optimizer.name\": [\"adam\", \"sgd\", \"adamw\"],\n"
    "            \"optimizer.lr\": {\"min\": 0.0001, \"max\": 0.1, \"scale\": \"log\"}}}\n"
    "  trials: how many (a grid without it: every combination; with fewer: a seeded subset); metric:\n"
    "  best_val_accuracy (default), best_val_loss, test_accuracy or test_loss.\n"
    "  \"early_stopping\": {\"rule\": \"asha\", \"eta\": 3, \"grace_epochs\": 1} stops poor trials early (ASHA,\n"
    "  asynchronous successive halving): at epochs grace, grace*eta, grace*eta^2, ... a trial's validation\n"
    "  (val_accuracy, or val_loss for a loss metric) is set against the other trials' at that epoch, and it\n"
    "  trains on only when among the top 1/eta of them; the decision and its reason go to the trial's log.\n"
    "\n"
    "  --sweep FILE       the sweep file\n"
    "  --run              train the queue after queueing\n"
    "  --runs-dir DIR     the runs folder (default: runs)\n"
    "  --json             `show` prints JSON\n"
    "  --write-best FILE  `show` writes the best trial's experiment.json there\n"
    "\n"
    "Examples:\n"
    "  workbench-cli sweep start my.json --sweep optimizers.json --run\n"
    "  workbench-cli sweep show optimizers\n"
    "  workbench-cli sweep show optimizers --write-best best.json && workbench-cli train best.json\n"
    "\n"
    "Exit status: 0 done, 2 bad input (nothing queued), 1 failure.\n";

struct TrialResult {
  QueueEntry entry;
  std::optional<RunRecord> run;
  double metric = -1;  // -1: not measured (yet)
};

double metricOf(const RunRecord& r, const std::string& metric) {
  if (metric == "best_val_loss") return r.best_val_loss;
  if (metric == "test_accuracy") return r.test_accuracy;
  if (metric == "test_loss") return r.test_loss;
  return r.best_val_accuracy;
}

int startSweep(const std::vector<std::string>& args) {
  ExperimentArgs exp_args;
  std::vector<std::string> rest;
  if (!parseExperimentArgs(args, exp_args, rest, {"--sweep"})) return kExitBadInput;
  std::string sweep_file;
  bool run = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == "--sweep" && i + 1 < rest.size()) {
      sweep_file = rest[++i];
    } else if (rest[i] == "--run") {
      run = true;
    } else {
      std::cerr << "error: unknown argument '" << rest[i] << "' for sweep start\n\n" << kSweepHelp;
      return kExitBadInput;
    }
  }
  if (sweep_file.empty()) {
    std::cerr << "error: sweep start needs --sweep SWEEP.json (`workbench-cli sweep --help` shows its form)\n";
    return kExitBadInput;
  }
  const std::optional<Experiment> experiment = resolveExperiment(exp_args);
  if (!experiment) return kExitBadInput;
  const SweepSpec spec = loadSweepFile(sweep_file);
  const std::vector<SweepTrial> trials = planSweep(experimentToJson(*experiment), spec, checkExperiment);
  const std::string runs_dir = fs::absolute(experiment->output.runs_dir).lexically_normal().string();
  for (const QueueEntry& e : listQueue(runs_dir)) {
    if (e.sweep == spec.name) {
      throw UserError("A sweep named \"" + spec.name + "\" is already in the queue of " + runs_dir + ".",
                      "Give this one another \"name\", or see that one with `workbench-cli sweep show " + spec.name + "`.");
    }
  }
  std::vector<QueueAddition> additions;
  for (const SweepTrial& trial : trials) {
    QueueAddition a;
    a.experiment = trial.experiment.dump(2);
    a.label = trial.label;
    a.cwd = fs::current_path().string();
    a.sweep = spec.name;
    a.overrides = trial.overrides.dump();
    a.sweep_metric = spec.metric;
    a.failed = trial.problem.empty() ? "" : "the engine's checks refuse this combination: " + trial.problem;
    additions.push_back(std::move(a));
  }
  // The rule first: a worker already running on this queue may claim a trial the moment it is added.
  if (spec.early_stopping.enabled()) recordSweepRule(runs_dir, spec.name, spec.early_stopping);
  addAllToQueue(runs_dir, additions);
  std::cout << "Sweep " << spec.name << ": " << trials.size() << " trials queued in " << runs_dir << " (metric "
            << spec.metric << ", " << (spec.maximize() ? "higher" : "lower") << " is better)\n";
  if (spec.early_stopping.enabled()) {
    std::string rungs;
    for (const int64_t epoch : sweepRungEpochs(spec.early_stopping, experiment->train.epochs)) {
      rungs += (rungs.empty() ? "" : ", ") + std::to_string(epoch);
    }
    char eta[32];
    std::snprintf(eta, sizeof(eta), "%g", spec.early_stopping.eta);
    std::cout << "Early stopping: ASHA, the top 1/" << eta << " of the trials at each rung go on; rungs at epoch"
              << (rungs.find(',') == std::string::npos ? " " : "s ")
              << (rungs.empty() ? "none (the trials are too short: every trial trains to its end)" : rungs) << "\n";
  }
  for (const SweepTrial& trial : trials) {
    std::cout << "  " << trial.label << "  " << describeOverrides(trial.overrides)
              << (trial.problem.empty() ? "" : "  [refused: " + trial.problem + "]") << "\n";
  }
  if (!run) {
    std::cout << "Train them with `workbench-cli queue run --until-empty --runs-dir " << runs_dir << "`.\n";
    return kExitOk;
  }
  const int status = runQueueWorker(runs_dir, /*until_empty=*/true);
  return status;
}

std::vector<TrialResult> sweepResults(const std::string& runs_dir, const std::string& name, const SweepSpec& spec) {
  std::map<std::string, RunRecord> runs;
  for (const RunRecord& r : listRuns(runs_dir)) runs[r.folder] = r;
  std::vector<TrialResult> results;
  for (const QueueEntry& e : listQueue(runs_dir)) {
    if (e.sweep != name) continue;
    TrialResult t{e, std::nullopt, -1};
    const auto found = runs.find(e.run_folder);
    if (found != runs.end()) {
      t.run = found->second;
      t.metric = metricOf(found->second, spec.metric);
    }
    results.push_back(std::move(t));
  }
  return results;
}

int showSweep(const std::string& runs_dir, const std::string& name, bool json, const std::string& write_best) {
  SweepSpec spec;
  spec.name = name;
  for (const QueueEntry& e : listQueue(runs_dir)) {
    if (e.sweep == name && !e.sweep_metric.empty()) spec.metric = e.sweep_metric;
  }
  const std::vector<TrialResult> results = sweepResults(runs_dir, name, spec);
  if (results.empty()) {
    throw UserError("No sweep named \"" + name + "\" in the queue of " + runs_dir + ".",
                    "`workbench-cli sweep list` shows the sweeps there.");
  }
  const TrialResult* best = nullptr;
  double compute_s = 0;
  for (const TrialResult& t : results) {
    if (t.run && t.run->wall_s > 0) compute_s += t.run->wall_s;
    if (t.metric < 0 || t.entry.state != "done") continue;
    if (!best || (spec.maximize() ? t.metric > best->metric : t.metric < best->metric)) best = &t;
  }
  if (!write_best.empty()) {
    if (!best) throw UserError("No trial of sweep " + name + " has finished with its metric yet.", "Wait for the queue.");
    std::ifstream in(best->entry.run_folder + "/experiment.json");
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded()) throw UserError("Cannot read " + best->entry.run_folder + "/experiment.json.", "");
    std::ofstream(write_best) << doc.dump(2) << "\n";
  }
  if (json) {
    nlohmann::json out = {{"sweep", name}, {"metric", spec.metric}, {"compute_s", compute_s}};
    out["trials"] = nlohmann::json::array();
    for (const TrialResult& t : results) {
      out["trials"].push_back({{"label", t.entry.label},
                               {"values", nlohmann::json::parse(t.entry.overrides, nullptr, false)},
                               {"state", t.entry.state},
                               {"metric", t.metric >= 0 ? nlohmann::json(t.metric) : nlohmann::json()},
                               {"wall_s", t.run && t.run->wall_s > 0 ? nlohmann::json(t.run->wall_s) : nlohmann::json()},
                               {"run_folder", t.entry.run_folder},
                               {"message", t.entry.message},
                               {"best", best == &t}});
    }
    out["best"] = best ? nlohmann::json(best->entry.label) : nlohmann::json();
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("Sweep %s (%s, %s is better):\n", name.c_str(), spec.metric.c_str(), spec.maximize() ? "higher" : "lower");
  std::printf("  %-22s %-9s %-8s %9s  %s\n", "trial", "metric", "state", "time", "values");
  for (const TrialResult& t : results) {
    char metric_text[16] = "-";
    if (t.metric >= 0) std::snprintf(metric_text, sizeof(metric_text), "%.4f", t.metric);
    char time_text[16] = "-";
    if (t.run && t.run->wall_s > 0) std::snprintf(time_text, sizeof(time_text), t.run->wall_s < 10 ? "%.2f s" : "%.0f s", t.run->wall_s);
    const bool stopped = t.entry.state == "done" && t.entry.message.rfind("stopped", 0) == 0;
    std::printf("%s %-22s %-9s %-8s %9s  %s%s\n", best == &t ? "*" : " ", t.entry.label.c_str(), metric_text,
                stopped ? "stopped" : t.entry.state.c_str(), time_text,
                describeOverrides(nlohmann::json::parse(t.entry.overrides, nullptr, false)).c_str(),
                t.entry.state == "failed" || stopped ? ("  (" + t.entry.message + ")").c_str() : "");
  }
  std::printf("compute: %.1f s of training in all", compute_s);
  if (best) std::printf("; best: %s, %s %.4f", best->entry.label.c_str(), spec.metric.c_str(), best->metric);
  std::printf("\n");
  return kExitOk;
}

int listSweeps(const std::string& runs_dir) {
  std::map<std::string, std::map<std::string, int>> sweeps;
  for (const QueueEntry& e : listQueue(runs_dir)) {
    if (!e.sweep.empty()) ++sweeps[e.sweep][e.state];
  }
  if (sweeps.empty()) {
    std::cout << "No sweeps in " << runs_dir << " (`workbench-cli sweep start EXPERIMENT.json --sweep SWEEP.json`).\n";
    return kExitOk;
  }
  for (const auto& [name, states] : sweeps) {
    std::string counts;
    for (const auto& [state, n] : states) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + state;
    std::cout << name << ": " << counts << "\n";
  }
  return kExitOk;
}

}  // namespace

int sweepCommand(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kSweepHelp;
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const std::string action = args[0];
  const std::vector<std::string> tail(args.begin() + 1, args.end());
  for (const std::string& a : tail) {
    if (a == "--help" || a == "-h") {
      std::cout << kSweepHelp;
      return kExitOk;
    }
  }
  try {
    if (action == "start") return startSweep(tail);
    std::string runs_dir = "runs", name, write_best;
    bool json = false;
    for (size_t i = 0; i < tail.size(); ++i) {
      if (tail[i] == "--runs-dir" && i + 1 < tail.size()) {
        runs_dir = tail[++i];
      } else if (tail[i] == "--write-best" && i + 1 < tail.size()) {
        write_best = tail[++i];
      } else if (tail[i] == "--json") {
        json = true;
      } else if (name.empty() && !tail[i].empty() && tail[i][0] != '-') {
        name = tail[i];
      } else {
        std::cerr << "error: unknown argument '" << tail[i] << "' for sweep " << action << "\n\n" << kSweepHelp;
        return kExitBadInput;
      }
    }
    runs_dir = fs::absolute(runs_dir).lexically_normal().string();
    if (action == "list") return listSweeps(runs_dir);
    if (action == "show") {
      if (name.empty()) {
        std::cerr << "error: sweep show needs the sweep's name (`workbench-cli sweep list` shows them)\n";
        return kExitBadInput;
      }
      return showSweep(runs_dir, name, json, write_best);
    }
    std::cerr << "error: unknown sweep action '" << action << "'\n\n" << kSweepHelp;
    return kExitBadInput;
  } catch (const UserError& e) {
    printError(e.what(), e.hint());
    return kExitBadInput;
  } catch (const std::exception& e) {
    printError(std::string("sweep ") + action + " failed: " + e.what(), "");
    return kExitFailure;
  }
}

}  // namespace wb::cli
