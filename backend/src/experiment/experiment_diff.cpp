#include <algorithm>
#include <map>

#include "workbench/experiment.h"

namespace wb {
namespace {

void flatten(const nlohmann::json& node, const std::string& path, std::map<std::string, std::string>& out) {
  if (node.is_object() && !node.empty()) {
    for (const auto& item : node.items())
      flatten(item.value(), path.empty() ? item.key() : path + "." + item.key(), out);
    return;
  }
  out[path] = node.dump();
}

}  // namespace

std::vector<ExperimentChange> diffExperiments(const nlohmann::json& before, const nlohmann::json& after) {
  std::map<std::string, std::string> a, b;
  flatten(before, "", a);
  flatten(after, "", b);
  std::vector<ExperimentChange> changes;
  for (const auto& [path, value] : a) {
    auto it = b.find(path);
    if (it == b.end()) {
      changes.push_back({path, value, ""});
    } else if (it->second != value) {
      changes.push_back({path, value, it->second});
    }
  }
  for (const auto& [path, value] : b) {
    if (!a.count(path)) changes.push_back({path, "", value});
  }
  std::sort(changes.begin(), changes.end(),
            [](const ExperimentChange& x, const ExperimentChange& y) { return x.path < y.path; });
  return changes;
}

std::vector<ExperimentChange> changesSinceSaved(const nlohmann::json& saved, const Experiment& now) {
  const ParseResult parsed = parseExperiment(saved);
  return diffExperiments(parsed.ok() ? experimentToJson(parsed.experiment) : saved, experimentToJson(now));
}

std::string describeChanges(const std::vector<ExperimentChange>& changes) {
  std::string text;
  for (const ExperimentChange& c : changes) {
    if (!text.empty()) text += "; ";
    text += c.path + ": " + (c.before.empty() ? "(absent)" : c.before) + " -> " +
            (c.after.empty() ? "(absent)" : c.after);
  }
  return text;
}

}  // namespace wb
