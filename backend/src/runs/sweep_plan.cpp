#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>

#include "workbench/did_you_mean.h"
#include "workbench/errors.h"
#include "workbench/experiment.h"
#include "workbench/sweep.h"

namespace wb {
namespace {

// SplitMix64 and our own mapping to [0, 1): a seed draws the same trials with every standard library (the
// standard distributions differ between them).
class SweepRandom {
 public:
  explicit SweepRandom(uint64_t seed) : m_state(seed) {}
  uint64_t next() {
    uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }

 private:
  uint64_t m_state;
};

[[noreturn]] void refuse(const std::string& source, const std::string& what, const std::string& hint) {
  throw UserError("The sweep " + source + " is not valid: " + what, hint);
}

// A drawn number kept to 3 significant digits, as a person would write it (0.00316, not
// 0.0031622776601683794).
nlohmann::json tidy(double value, bool integer) {
  if (integer) return static_cast<int64_t>(std::llround(value));
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g", value);
  return std::stod(text);
}

std::string shown(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// One of "keys": a list of values, or a range {"min", "max", "scale"}.
SweepKey readSweepKey(const std::string& name, const nlohmann::json& v, const std::string& source,
                      const std::string& hint) {
  SweepKey key;
  key.key = name;
  const std::string at = "keys." + key.key;
  if (v.is_array()) {
    if (v.empty()) refuse(source, at + " has no values", hint);
    for (const auto& value : v) key.values.push_back(value);
  } else if (v.is_object()) {
    if (!v.contains("min") || !v.contains("max") || !v["min"].is_number() || !v["max"].is_number()) {
      refuse(source, at + " needs numbers \"min\" and \"max\" (a range), or a list of values", hint);
    }
    for (auto f = v.begin(); f != v.end(); ++f) {
      if (f.key() != "min" && f.key() != "max" && f.key() != "scale") {
        refuse(source, at + ": unknown field \"" + f.key() + "\" (a range has min, max and scale)", hint);
      }
    }
    key.min = v["min"];
    key.max = v["max"];
    key.integer = v["min"].is_number_integer() && v["max"].is_number_integer();
    const std::string scale = v.value("scale", std::string("linear"));
    if (scale != "linear" && scale != "log")
      refuse(source, at + ".scale must be \"linear\" or \"log\"", hint);
    key.log_scale = scale == "log";
    if (!(key.min < key.max)) refuse(source, at + ": min must be below max", hint);
    if (key.log_scale && key.min <= 0) refuse(source, at + ": a log scale needs min above 0", hint);
  } else {
    refuse(source, at + " must be a list of values or a range {\"min\", \"max\", \"scale\"}", hint);
  }
  return key;
}

// The sweep file's "metric", read once: its word becomes the value the sweep compares on.
SweepMetric readMetric(const std::string& metric, const std::string& source, const std::string& hint) {
  if (const std::optional<SweepMetric> value = fromWord<SweepMetric>(metric)) return *value;
  const std::vector<std::string> metrics = allWords<SweepMetric>();
  std::string choices;
  for (const std::string& word : metrics) choices += (choices.empty() ? "" : ", ") + word;
  const std::string near = didYouMean(metric, metrics);
  refuse(source,
         "\"metric\" \"" + metric + "\" is not one of " + choices +
             (near.empty() ? "" : "; did you mean \"" + near + "\"?"),
         hint);
}

SweepEarlyStopping readEarlyStopping(const nlohmann::json& es, const std::string& source,
                                     const std::string& hint) {
  SweepEarlyStopping rule;
  const std::string form = "\"early_stopping\" is {\"rule\": \"asha\", \"eta\": 3, \"grace_epochs\": 1}";
  if (!es.is_object()) refuse(source, form, hint);
  for (auto f = es.begin(); f != es.end(); ++f) {
    if (f.key() != "rule" && f.key() != "eta" && f.key() != "grace_epochs") {
      refuse(source, "early_stopping: unknown field \"" + f.key() + "\"; " + form, hint);
    }
  }
  if (!es.contains("rule") || es["rule"] != "asha") {
    refuse(source, "early_stopping.rule must be \"asha\" (successive halving of the trials at rungs)", hint);
  }
  rule.rule = "asha";
  if (es.contains("eta")) {
    if (!es["eta"].is_number() || !(es["eta"].get<double>() >= 1.5)) {
      refuse(source, "early_stopping.eta must be a number of at least 1.5 (each rung keeps the top 1/eta)",
             hint);
    }
    rule.eta = es["eta"];
  }
  if (es.contains("grace_epochs")) {
    if (!es["grace_epochs"].is_number_integer() || es["grace_epochs"].get<int64_t>() < 1) {
      refuse(source, "early_stopping.grace_epochs must be a whole number of at least 1 (the first rung)",
             hint);
    }
    rule.grace_epochs = es["grace_epochs"];
  }
  return rule;
}

// Every key and value alone on the base: an unknown key or a value the key does not take refuses the sweep.
void refuseKeysTheBaseDoesNotTake(const nlohmann::json& base, const SweepSpec& spec,
                                  const std::string& source) {
  for (const SweepKey& key : spec.keys) {
    std::vector<nlohmann::json> probes = key.values;
    if (probes.empty()) probes = {tidy(key.min, key.integer), tidy(key.max, key.integer)};
    for (const nlohmann::json& value : probes) {
      nlohmann::json doc = base;
      std::vector<ValidationIssue> issues = applyOverride(doc, key.key + "=" + value.dump());
      if (issues.empty()) {
        for (const ValidationIssue& issue : parseExperiment(doc).issues) {
          if (issue.path == key.key) issues.push_back(issue);
        }
      }
      if (!issues.empty()) {
        refuse(source, "keys." + key.key + " = " + value.dump() + ": " + issues.front().message,
               "Correct the key or the value in the sweep; nothing was queued.");
      }
    }
  }
}

// Each trial's values: the grid's combinations (a random subset of `trials` of them, in grid order, when
// fewer are asked for), or with a range among the keys `trials` random draws.
std::vector<nlohmann::json> trialValues(const SweepSpec& spec) {
  std::vector<nlohmann::json> combinations;
  SweepRandom random(spec.seed);
  bool grid = true;
  for (const SweepKey& key : spec.keys) grid = grid && !key.values.empty();
  if (grid) {
    size_t total = 1;
    for (const SweepKey& key : spec.keys) total *= key.values.size();
    std::vector<size_t> chosen(total);
    std::iota(chosen.begin(), chosen.end(), 0);
    if (spec.trials > 0 && static_cast<size_t>(spec.trials) < total) {
      for (size_t i = total - 1; i > 0; --i)
        std::swap(chosen[i], chosen[random.below(i + 1)]);  // Fisher-Yates
      chosen.resize(static_cast<size_t>(spec.trials));
      std::sort(chosen.begin(), chosen.end());
    }
    for (size_t index : chosen) {
      nlohmann::json values = nlohmann::json::object();
      for (auto key = spec.keys.rbegin(); key != spec.keys.rend(); ++key) {  // the last key varies fastest
        values[key->key] = key->values[index % key->values.size()];
        index /= key->values.size();
      }
      combinations.push_back(std::move(values));
    }
  } else {
    for (int64_t t = 0; t < spec.trials; ++t) {
      nlohmann::json values = nlohmann::json::object();
      for (const SweepKey& key : spec.keys) {
        if (!key.values.empty()) {
          values[key.key] = key.values[random.below(key.values.size())];
          continue;
        }
        const double u = random.uniform();
        const double x = key.log_scale
                             ? std::exp(std::log(key.min) + u * (std::log(key.max) - std::log(key.min)))
                             : key.min + u * (key.max - key.min);
        values[key.key] = tidy(x, key.integer);
      }
      combinations.push_back(std::move(values));
    }
  }
  return combinations;
}

}  // namespace

SweepSpec parseSweep(const nlohmann::json& doc, const std::string& source) {
  const std::string hint = "See `workbench-cli sweep --help` for the sweep file's form.";
  if (!doc.is_object()) refuse(source, "it is not a JSON object", hint);
  const std::vector<std::string> fields = {"name", "keys", "trials", "seed", "metric", "early_stopping"};
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (std::find(fields.begin(), fields.end(), it.key()) == fields.end()) {
      const std::string near = didYouMean(it.key(), fields);
      refuse(source,
             "unknown field \"" + it.key() + "\"" + (near.empty() ? "" : "; did you mean \"" + near + "\"?"),
             hint);
    }
  }
  SweepSpec spec;
  if (!doc.contains("name") || !doc["name"].is_string() || doc["name"].get<std::string>().empty()) {
    refuse(source, "\"name\" must be a non-empty string (the trials are named after it)", hint);
  }
  spec.name = doc["name"];
  for (const char c : spec.name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      refuse(source, "\"name\" may hold letters, digits, '-', '_' and '.' only (it names run folders)", hint);
    }
  }
  if (!doc.contains("keys") || !doc["keys"].is_object() || doc["keys"].empty()) {
    refuse(source, "\"keys\" must be an object of experiment keys and their values", hint);
  }
  bool any_range = false;
  for (auto it = doc["keys"].begin(); it != doc["keys"].end(); ++it) {
    SweepKey key = readSweepKey(it.key(), it.value(), source, hint);
    any_range = any_range || key.values.empty();
    spec.keys.push_back(std::move(key));
  }
  if (doc.contains("trials")) {
    if (!doc["trials"].is_number_integer() || doc["trials"].get<int64_t>() < 1) {
      refuse(source, "\"trials\" must be a whole number of at least 1", hint);
    }
    spec.trials = doc["trials"];
  } else if (any_range) {
    refuse(source, "a range draws values at random: say how many trials (\"trials\": 20)", hint);
  }
  if (doc.contains("seed")) {
    if (!doc["seed"].is_number_integer() || doc["seed"].get<int64_t>() < 0) {
      refuse(source, "\"seed\" must be a whole number of 0 or more", hint);
    }
    spec.seed = doc["seed"].get<uint64_t>();
  }
  if (doc.contains("metric")) {
    if (!doc["metric"].is_string()) refuse(source, "\"metric\" must be a string", hint);
    spec.metric = readMetric(doc["metric"].get<std::string>(), source, hint);
  }
  if (doc.contains("early_stopping")) {
    spec.early_stopping = readEarlyStopping(doc["early_stopping"], source, hint);
  }
  return spec;
}

nlohmann::json SweepEarlyStopping::toJson() const {
  if (!enabled()) return nlohmann::json::object();
  return {{"rule", rule}, {"eta", eta}, {"grace_epochs", grace_epochs}};
}

SweepEarlyStopping SweepEarlyStopping::fromJson(const nlohmann::json& j) {
  SweepEarlyStopping rule;
  if (!j.is_object() || !j.contains("rule") || !j["rule"].is_string()) return rule;
  rule.rule = j["rule"];
  if (j.contains("eta") && j["eta"].is_number()) rule.eta = j["eta"];
  if (j.contains("grace_epochs") && j["grace_epochs"].is_number_integer())
    rule.grace_epochs = j["grace_epochs"];
  return rule;
}

SweepSpec loadSweepFile(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw UserError("Cannot open the sweep file " + file, "Check the path.");
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    throw UserError("The sweep file " + file + " is not valid JSON.", "Check its syntax.");
  return parseSweep(doc, file);
}

std::vector<SweepTrial> planSweep(const nlohmann::json& base, const SweepSpec& spec,
                                  const ExperimentChecks& engine_checks) {
  const std::string source = "\"" + spec.name + "\"";
  if (spec.early_stopping.enabled()) {
    const ParseResult parsed = parseExperiment(base);
    if (parsed.ok() && parsed.experiment.data.val_fraction <= 0) {
      refuse(source,
             "early stopping compares the trials' validations, but the experiment has none "
             "(data.val_fraction is 0)",
             "Set data.val_fraction (such as 0.1) in the experiment, or drop early_stopping from the sweep.");
    }
  }
  refuseKeysTheBaseDoesNotTake(base, spec, source);
  const std::vector<nlohmann::json> combinations = trialValues(spec);
  const int width =
      combinations.size() < 100 ? 2 : static_cast<int>(std::to_string(combinations.size()).size());
  std::vector<SweepTrial> trials;
  for (size_t i = 0; i < combinations.size(); ++i) {
    SweepTrial trial;
    trial.number = static_cast<int64_t>(i + 1);
    std::string number = std::to_string(trial.number);
    number.insert(0, static_cast<size_t>(std::max(0, width - static_cast<int>(number.size()))), '0');
    trial.label = spec.name + "-t" + number;
    trial.overrides = combinations[i];
    nlohmann::json doc = base;
    for (auto it = trial.overrides.begin(); it != trial.overrides.end(); ++it)
      applyOverride(doc, it.key() + "=" + it.value().dump());
    doc["name"] = trial.label;
    const ParseResult parsed = parseExperiment(doc);
    std::vector<ValidationIssue> issues = parsed.issues;
    if (issues.empty() && engine_checks) issues = engine_checks(parsed.experiment);
    if (issues.empty()) {
      trial.experiment = experimentToJson(parsed.experiment);
    } else {
      trial.experiment = doc;
      trial.problem = formatIssues(issues);
    }
    trials.push_back(std::move(trial));
  }
  return trials;
}

std::string describeOverrides(const nlohmann::json& overrides) {
  std::string out;
  for (auto it = overrides.begin(); it != overrides.end(); ++it) {
    out += (out.empty() ? "" : ", ") + it.key() + "=" + shown(it.value());
  }
  return out;
}

}  // namespace wb
