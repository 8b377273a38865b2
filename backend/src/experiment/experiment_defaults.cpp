// experimentDefaults: parsing a document that holds only the keys other defaults depend on gives every
// default in that context, from the same parser that reads experiment files, so the two cannot disagree.

#include "workbench/experiment_defaults.h"

#include <algorithm>

#include "workbench/experiment.h"

namespace wb {
namespace {

using nlohmann::json;

// The keys whose value changes another key's default (see the header).
const char* const kContextKeys[][2] = {
    {"optimizer", "name"},
    {"model", "layers"},
    {"model", "torchscript"},
    {"model", "huggingface"},
};

void collectDefaulted(const json& value, const json& defaults, const std::string& path,
                      std::vector<std::string>& out) {
  if (value.is_object() && defaults.is_object()) {
    for (const auto& item : value.items()) {
      const auto it = defaults.find(item.key());
      if (it == defaults.end()) continue;  // not a key of the experiment
      collectDefaulted(item.value(), *it, path.empty() ? item.key() : path + "." + item.key(), out);
    }
    return;
  }
  // nlohmann compares numbers by value across integer and float (15 == 15.0).
  if (!value.is_object() && value == defaults) out.push_back(path);
}

}  // namespace

json experimentDefaults(const json& doc) {
  json context = json::object();
  if (doc.is_object()) {
    for (const auto& key : kContextKeys) {
      const auto section = doc.find(key[0]);
      if (section == doc.end() || !section->is_object()) continue;
      const auto value = section->find(key[1]);
      if (value != section->end()) context[key[0]][key[1]] = *value;
    }
  }
  // A context value the parser cannot read (an unknown optimizer name) is reported and left at its default,
  // so the experiment it returns holds the defaults whatever the issues.
  json defaults = experimentToJson(parseExperiment(context).experiment);
  // The context keys' own defaults do not depend on the document: "sgd" is not the default optimizer.
  const json plain = experimentToJson(parseExperiment(json::object()).experiment);
  for (const auto& key : kContextKeys) defaults[key[0]][key[1]] = plain[key[0]][key[1]];
  return defaults;
}

std::vector<std::string> defaultedKeys(const json& doc) {
  std::vector<std::string> keys;
  if (!doc.is_object()) return keys;
  collectDefaulted(doc, experimentDefaults(doc), "", keys);
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace wb
