#pragma once
// The sweep being built in the Sweep Builder (sweep_builder_dialog.h), as plain data a test can build and
// check: its keys with their values as a list ("64, 128") or a range (from, to, a count, linear or log
// scale), grid or random search, the trial count, the seed, the metric and ASHA. It turns into the engine's
// sweep file (workbench/sweep.h) and only through the engine's own parser: a draft the engine refuses never
// becomes a file or a queue. Pure: no widget.
//
// How a range becomes the file's values: a grid tries `count` evenly spaced values (geometrically on a log
// scale: 1e-4..1e-2 in 4 is 0.0001, 0.000464, 0.00215, 0.01), written as a list; a random search draws
// `trials` values between the ends, written as the file's range {"min", "max", "scale"}.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workbench/sweep.h"
#include "workbench/word_set.h"

namespace wb {
struct ExperimentKey;
}

namespace wb::gui {

// Every combination of the keys' values (a seeded subset when fewer trials are asked for), or seeded random
// draws from the ranges.
enum class SweepSearch { Grid, Random };
enum class SweepValuesForm { List, Range };

}  // namespace wb::gui

namespace wb {
template <>
struct Words<gui::SweepSearch> {
  static constexpr std::array<Word<gui::SweepSearch>, 2> table{
      {{gui::SweepSearch::Grid, "grid"}, {gui::SweepSearch::Random, "random"}}};
};
template <>
struct Words<gui::SweepValuesForm> {
  static constexpr std::array<Word<gui::SweepValuesForm>, 2> table{
      {{gui::SweepValuesForm::List, "list"}, {gui::SweepValuesForm::Range, "range"}}};
};
}  // namespace wb

namespace wb::gui {

struct SweepDraftKey {
  std::string key;  // an experiment key, "optimizer.lr"
  SweepValuesForm form = SweepValuesForm::List;
  std::vector<nlohmann::json> values;  // a list
  double from = 0, to = 0;             // a range
  int count = 3;                       // a range's values in a grid
  bool log_scale = false;
};

struct SweepDraft {
  std::string name = "sweep";
  std::vector<SweepDraftKey> keys;
  SweepSearch search = SweepSearch::Grid;
  int64_t trials = 0;  // a grid: 0 tries every combination; a random search needs it
  uint64_t seed = 1;
  SweepMetric metric = SweepMetric::BestValAccuracy;
  bool asha = false;
  double eta = 3;
  int64_t grace_epochs = 1;
};

// `count` values from `from` to `to`, both ends included, evenly spaced (on a log scale, evenly in log),
// kept to 3 significant digits as the engine keeps its draws; whole numbers, without repeats, for `integer`.
std::vector<nlohmann::json> rangeValues(double from, double to, int count, bool log_scale, bool integer);

// "64, 128" or "adam, sgd" as the values `key` takes: numbers for a number key, whole numbers for an integer
// key, true/false, or words (one of its choices when it has them). Throws wb::UserError naming the value and
// the key.
std::vector<nlohmann::json> parseSweepValues(const std::string& text, const ExperimentKey& key);
// The values as parseSweepValues reads them.
std::string sweepValuesText(const std::vector<nlohmann::json>& values);

// The sweep file the draft stands for, as written (keys in the draft's order).
nlohmann::json sweepFileJson(const SweepDraft& draft);
// The engine's reading of that file: throws wb::UserError with its message where the engine refuses it.
SweepSpec checkedSweep(const SweepDraft& draft);
// An existing sweep file, read by the engine's parser, as a draft to edit (a range makes it a random search).
SweepDraft draftFromSweep(const SweepSpec& spec);

// How many trials the draft makes (a grid's combinations, or its trial count), before the engine's checks.
int64_t draftTrialCount(const SweepDraft& draft);

}  // namespace wb::gui
