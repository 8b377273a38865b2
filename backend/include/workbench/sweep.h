#pragma once
// A sweep: keys of the experiment file and the values to try, turned into trials — each a whole experiment
// (the base with the trial's values), queued as a normal run (workbench/run_queue.h), so that it reruns and
// resumes alone. Lists of values make a grid (every combination, or a seeded subset of `trials`); a range
// ({"min", "max", "scale": "linear" | "log"}) makes a seeded random search of `trials`. Every key and value
// is checked against the experiment's schema before anything is queued. Plain C++, no Torch.
//
// The sweep file:
//   {"name": "optimizers", "trials": 8, "seed": 1, "metric": "best_val_accuracy",
//    "keys": {"optimizer.name": ["adam", "sgd", "adamw"],
//             "optimizer.lr": {"min": 0.0001, "max": 0.1, "scale": "log"}},
//    "early_stopping": {"rule": "asha", "eta": 3, "grace_epochs": 1}}

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workbench/word_set.h"

namespace wb {

// What a sweep compares its trials on (the sweep file's "metric"; stored as its word with each trial in the
// queue): a figure of the run index, accuracies higher-is-better, losses lower-is-better.
enum class SweepMetric { BestValAccuracy, BestValLoss, TestAccuracy, TestLoss };
template <>
struct Words<SweepMetric> {
  static constexpr std::array<Word<SweepMetric>, 4> table{
      {{SweepMetric::BestValAccuracy, "best_val_accuracy"},
       {SweepMetric::BestValLoss, "best_val_loss"},
       {SweepMetric::TestAccuracy, "test_accuracy"},
       {SweepMetric::TestLoss, "test_loss"}}};
};
static_assert(isWholeWordTable<SweepMetric>());

// Whether a higher value of `metric` is better (the accuracies).
constexpr bool higherIsBetter(SweepMetric metric) {
  return metric == SweepMetric::BestValAccuracy || metric == SweepMetric::TestAccuracy;
}

struct SweepKey {
  std::string key;                     // an experiment key, "optimizer.lr"
  std::vector<nlohmann::json> values;  // a list to try; empty for a range
  double min = 0, max = 0;             // a range
  bool log_scale = false;
  bool integer = false;  // a range whose ends are integers draws integers
};

// Early stopping of poor trials by asynchronous successive halving (ASHA, Li et al., "A System for Massively
// Parallel Hyperparameter Tuning", MLSys 2020): at the rung epochs grace_epochs x eta^k a trial's validation
// metric is set against those of the sweep's trials that reached the same rung, and it trains on only when
// among the top 1/eta of them (workbench/sweep_rungs.h).
struct SweepEarlyStopping {
  std::string rule;          // "" none, "asha"
  double eta = 3;            // the kept share at each rung is 1/eta
  int64_t grace_epochs = 1;  // the first rung: no trial is stopped before it
  bool enabled() const { return !rule.empty(); }
  nlohmann::json toJson() const;
  static SweepEarlyStopping fromJson(const nlohmann::json& j);  // as toJson writes it
};

struct SweepSpec {
  std::string name;
  std::vector<SweepKey> keys;  // in the file's order
  int64_t trials = 0;          // 0: the whole grid (lists only)
  uint64_t seed = 0;
  SweepMetric metric = SweepMetric::BestValAccuracy;
  SweepEarlyStopping early_stopping;
  bool maximize() const { return higherIsBetter(metric); }
};

struct SweepTrial {
  int64_t number = 0;         // 1, 2, ...
  std::string label;          // "<sweep>-t01"
  nlohmann::json overrides;   // {"optimizer.lr": 0.003, ...}
  nlohmann::json experiment;  // the whole experiment, name = label
  std::string problem;  // non-empty: this combination is refused by the engine's checks (queued as failed)
};

// Reads a sweep file. Throws wb::UserError naming the file and what is wrong in it.
SweepSpec loadSweepFile(const std::string& file);
SweepSpec parseSweep(const nlohmann::json& doc, const std::string& source);

struct Experiment;
struct ValidationIssue;
// The engine's checks of a whole experiment (wb::checkExperiment, which needs LibTorch): a combination they
// refuse becomes a trial with a `problem`, queued as failed, and the sweep goes on.
using ExperimentChecks = std::function<std::vector<ValidationIssue>(const Experiment&)>;

// The trials of a sweep over `base` (a resolved experiment's JSON). Throws wb::UserError before any trial
// when a key is not an experiment key (with "did you mean") or a value is not one the key takes, naming both,
// or when early stopping has no validation to compare (the base's data.val_fraction is 0).
std::vector<SweepTrial> planSweep(const nlohmann::json& base, const SweepSpec& spec,
                                  const ExperimentChecks& engine_checks = {});

// "optimizer.lr=0.003, optimizer.name=adam": a trial's values, as the tables show them.
std::string describeOverrides(const nlohmann::json& overrides);

}  // namespace wb
