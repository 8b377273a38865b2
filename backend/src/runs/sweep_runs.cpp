#include "workbench/sweep_runs.h"

#include <algorithm>
#include <map>

#include "workbench/errors.h"
#include "workbench/sweep_rungs.h"

namespace wb {
namespace {

double sweepMetricOf(const RunRecord& r, SweepMetric metric) {
  switch (metric) {
    case SweepMetric::BestValAccuracy:
      return r.best_val_accuracy;
    case SweepMetric::BestValLoss:
      return r.best_val_loss;
    case SweepMetric::TestAccuracy:
      return r.test_accuracy;
    case SweepMetric::TestLoss:
      return r.test_loss;
  }
  return r.best_val_accuracy;
}

}  // namespace

TrialStatus trialStatus(QueueState state) {
  switch (state) {
    case QueueState::Queued:
      return TrialStatus::Queued;
    case QueueState::Held:
      return TrialStatus::Held;
    case QueueState::Running:
      return TrialStatus::Running;
    case QueueState::Done:
      return TrialStatus::Done;
    case QueueState::Failed:
      return TrialStatus::Failed;
    case QueueState::Unknown:
      return TrialStatus::Unknown;
  }
  return TrialStatus::Unknown;
}

std::string sweepTag(const std::string& sweep) {
  return "sweep:" + sweep;
}

std::vector<int64_t> queueSweep(const std::string& runs_dir, const std::string& cwd, const SweepSpec& spec,
                                const std::vector<SweepTrial>& trials) {
  for (const QueueEntry& e : listQueue(runs_dir)) {
    if (e.sweep == spec.name) {
      throw UserError(
          "A sweep named \"" + spec.name + "\" is already in the queue of " + runs_dir + ".",
          "Give this one another \"name\" in its sweep file, or see that one's trials (`workbench-cli "
          "sweep show " +
              spec.name + "`).");
    }
  }
  std::vector<QueueAddition> additions;
  for (const SweepTrial& trial : trials) {
    QueueAddition a;
    a.experiment = trial.experiment.dump(2);
    a.label = trial.label;
    a.cwd = cwd;
    a.sweep = spec.name;
    a.overrides = trial.overrides.dump();
    a.sweep_metric = spec.metric;
    a.failed = trial.problem.empty() ? "" : "the engine's checks refuse this combination: " + trial.problem;
    additions.push_back(std::move(a));
  }
  if (spec.early_stopping.enabled()) recordSweepRule(runs_dir, spec.name, spec.early_stopping);
  return addAllToQueue(runs_dir, additions);
}

int64_t SweepResults::count(TrialStatus status) const {
  return std::count_if(trials.begin(), trials.end(),
                       [&](const SweepTrialResult& t) { return t.status() == status; });
}

bool SweepResults::finished() const {
  return count(TrialStatus::Queued) + count(TrialStatus::Held) + count(TrialStatus::Running) == 0;
}

SweepResults readSweepResults(const std::string& runs_dir, const std::string& name) {
  SweepResults out;
  out.name = name;
  std::map<std::string, RunRecord> by_folder;
  std::map<int64_t, RunRecord> running_by_pid;  // a running trial's run folder is recorded when it ends
  for (const RunRecord& r : listRuns(runs_dir)) {
    by_folder[r.folder] = r;
    if (r.status == RunIndexStatus::Running) running_by_pid[r.pid] = r;
  }
  for (const QueueEntry& e : listQueue(runs_dir)) {
    if (e.sweep != name) continue;
    if (e.sweep_metric) out.metric = *e.sweep_metric;
    SweepTrialResult t;
    t.entry = e;
    const nlohmann::json values = nlohmann::json::parse(e.overrides, nullptr, false);
    if (values.is_object()) t.values = values;
    const auto found = by_folder.find(e.run_folder);
    if (!e.run_folder.empty() && found != by_folder.end()) {
      t.run = found->second;
    } else if (e.state == QueueState::Running && running_by_pid.count(e.owner_pid) > 0) {
      t.run = running_by_pid[e.owner_pid];
    }
    // The sweep's rule says "stopped at the ASHA rung …" (cli/queue_command.cpp); an experiment's own early
    // stopping ("stopped early") is a trial that ended as planned.
    t.stopped = e.state == QueueState::Done && e.message.rfind("stopped at the ", 0) == 0;
    out.trials.push_back(std::move(t));
  }
  if (out.trials.empty()) {
    throw UserError("No sweep named \"" + name + "\" in the queue of " + runs_dir + ".",
                    "`workbench-cli sweep list` shows the sweeps there.");
  }
  out.maximize = higherIsBetter(out.metric);
  for (SweepTrialResult& t : out.trials) {
    if (t.run) t.metric = sweepMetricOf(*t.run, out.metric);
    if (t.run && t.run->wall_s > 0) out.compute_s += t.run->wall_s;
  }
  for (auto it = out.trials.front().values.begin(); it != out.trials.front().values.end(); ++it) {
    out.keys.push_back(it.key());
  }
  for (size_t i = 0; i < out.trials.size(); ++i) {
    const SweepTrialResult& t = out.trials[i];
    if (t.metric < 0 || t.entry.state != QueueState::Done) continue;
    const double best = out.best < 0 ? 0 : out.trials[out.best].metric;
    if (out.best < 0 || (out.maximize ? t.metric > best : t.metric < best)) out.best = static_cast<int>(i);
  }
  return out;
}

std::vector<std::string> listSweepNames(const std::string& runs_dir) {
  std::vector<std::string> names;
  for (const QueueEntry& e : listQueue(runs_dir)) {
    if (!e.sweep.empty() && std::find(names.begin(), names.end(), e.sweep) == names.end())
      names.push_back(e.sweep);
  }
  return names;
}

}  // namespace wb
