#include "sweep_view/sweep_draft.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "workbench/errors.h"
#include "workbench/experiment_keys.h"

namespace wb::gui {
namespace {

// As the engine keeps a drawn value (sweep_plan.cpp's tidy): 3 significant digits, as a person writes them.
double threeDigits(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", value);
  return std::stod(text);
}

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

[[noreturn]] void refuseValue(const std::string& value, const ExperimentKey& key, const std::string& takes) {
  throw UserError("\"" + value + "\" is not a value " + key.path + " takes: it takes " + takes,
                  "Write the values separated by commas, such as 64, 128.");
}

nlohmann::json parseOneValue(const std::string& word, const ExperimentKey& key) {
  switch (key.kind) {
    case ExperimentKeyKind::Boolean:
      if (word == "true" || word == "false") return word == "true";
      refuseValue(word, key, "true or false");
    case ExperimentKeyKind::Integer: {
      size_t used = 0;
      try {
        const long long value = std::stoll(word, &used);
        if (used == word.size()) return static_cast<int64_t>(value);
      } catch (const std::exception&) {
      }
      refuseValue(word, key, "whole numbers");
    }
    case ExperimentKeyKind::Number: {
      size_t used = 0;
      try {
        const double value = std::stod(word, &used);
        if (used == word.size() && std::isfinite(value)) return value;
      } catch (const std::exception&) {
      }
      refuseValue(word, key, "numbers (such as 0.001 or 1e-3)");
    }
    case ExperimentKeyKind::String:
      if (!key.choices.empty() &&
          std::find(key.choices.begin(), key.choices.end(), word) == key.choices.end()) {
        std::string choices;
        for (const std::string& c : key.choices) choices += (choices.empty() ? "" : ", ") + c;
        refuseValue(word, key, "one of " + choices);
      }
      return word;
    case ExperimentKeyKind::List:
    case ExperimentKeyKind::Layers:
      break;
  }
  throw UserError(key.path + " takes a list of its own: a sweep tries single values only",
                  "Choose a key that takes a number, a word or true/false.");
}

}  // namespace

std::vector<nlohmann::json> rangeValues(double from, double to, int count, bool log_scale, bool integer) {
  std::vector<nlohmann::json> values;
  if (count < 1) return values;
  for (int i = 0; i < count; ++i) {
    const double t = count == 1 ? 0.0 : static_cast<double>(i) / (count - 1);
    const double x =
        log_scale ? std::exp(std::log(from) + t * (std::log(to) - std::log(from))) : from + t * (to - from);
    const nlohmann::json value =
        integer ? nlohmann::json(static_cast<int64_t>(std::llround(x))) : nlohmann::json(threeDigits(x));
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  return values;
}

std::vector<nlohmann::json> parseSweepValues(const std::string& text, const ExperimentKey& key) {
  std::vector<nlohmann::json> values;
  std::stringstream in(text);
  std::string word;
  while (std::getline(in, word, ',')) {
    word = trimmed(word);
    if (word.empty()) continue;
    values.push_back(parseOneValue(word, key));
  }
  if (values.empty()) {
    throw UserError(key.path + " has no values", "Write the values separated by commas, such as 64, 128.");
  }
  return values;
}

std::string sweepValuesText(const std::vector<nlohmann::json>& values) {
  std::string text;
  for (const nlohmann::json& v : values) {
    text += (text.empty() ? "" : ", ") + (v.is_string() ? v.get<std::string>() : v.dump());
  }
  return text;
}

nlohmann::json sweepFileJson(const SweepDraft& draft) {
  nlohmann::json doc = {{"name", draft.name}, {"seed", draft.seed}, {"metric", wordString(draft.metric)}};
  nlohmann::json keys = nlohmann::json::object();
  for (const SweepDraftKey& k : draft.keys) {
    const ExperimentKey* schema = findExperimentKey(k.key);
    const bool integer = schema && schema->kind == ExperimentKeyKind::Integer;
    if (k.form == SweepValuesForm::List) {
      keys[k.key] = k.values;
    } else if (draft.search == SweepSearch::Grid) {
      keys[k.key] = rangeValues(k.from, k.to, k.count, k.log_scale, integer);
    } else {
      keys[k.key] = {{"min", integer ? nlohmann::json(std::llround(k.from)) : nlohmann::json(k.from)},
                     {"max", integer ? nlohmann::json(std::llround(k.to)) : nlohmann::json(k.to)},
                     {"scale", k.log_scale ? "log" : "linear"}};
    }
  }
  doc["keys"] = keys;
  if (draft.trials > 0 || draft.search == SweepSearch::Random) doc["trials"] = draft.trials;
  if (draft.asha)
    doc["early_stopping"] = {{"rule", "asha"}, {"eta", draft.eta}, {"grace_epochs", draft.grace_epochs}};
  return doc;
}

SweepSpec checkedSweep(const SweepDraft& draft) {
  if (draft.keys.empty()) {
    throw UserError("The sweep has no keys", "Add a key of the experiment and the values to try.");
  }
  for (const SweepDraftKey& k : draft.keys) {
    if (k.form == SweepValuesForm::Range && draft.search == SweepSearch::Grid && k.count < 1) {
      throw UserError("keys." + k.key + ": a range in a grid needs a count of at least 1", "Set its count.");
    }
  }
  return parseSweep(sweepFileJson(draft), "\"" + draft.name + "\"");
}

SweepDraft draftFromSweep(const SweepSpec& spec) {
  SweepDraft draft;
  draft.name = spec.name;
  draft.trials = spec.trials;
  draft.seed = spec.seed;
  draft.metric = spec.metric;
  draft.asha = spec.early_stopping.enabled();
  draft.eta = spec.early_stopping.eta;
  draft.grace_epochs = spec.early_stopping.grace_epochs;
  for (const SweepKey& key : spec.keys) {
    SweepDraftKey k;
    k.key = key.key;
    if (key.values.empty()) {
      k.form = SweepValuesForm::Range;
      k.from = key.min;
      k.to = key.max;
      k.log_scale = key.log_scale;
      draft.search = SweepSearch::Random;
    } else {
      k.values = key.values;
    }
    draft.keys.push_back(std::move(k));
  }
  return draft;
}

int64_t draftTrialCount(const SweepDraft& draft) {
  if (draft.search == SweepSearch::Random) return draft.trials;
  int64_t total = draft.keys.empty() ? 0 : 1;
  for (const SweepDraftKey& k : draft.keys) {
    const ExperimentKey* schema = findExperimentKey(k.key);
    const bool integer = schema && schema->kind == ExperimentKeyKind::Integer;
    total *= static_cast<int64_t>(k.form == SweepValuesForm::List
                                      ? k.values.size()
                                      : rangeValues(k.from, k.to, k.count, k.log_scale, integer).size());
  }
  return draft.trials > 0 ? std::min(draft.trials, total) : total;
}

}  // namespace wb::gui
