#include "workbench/experiment_keys.h"

#include <algorithm>

#include "experiment/experiment_schema.h"

namespace wb {
namespace {

ExperimentKeyKind kindOf(KeyKind kind) {
  switch (kind) {
    case KeyKind::Boolean:
      return ExperimentKeyKind::Boolean;
    case KeyKind::Integer:
      return ExperimentKeyKind::Integer;
    case KeyKind::Number:
      return ExperimentKeyKind::Number;
    case KeyKind::List:
      return ExperimentKeyKind::List;
    case KeyKind::Layers:
      return ExperimentKeyKind::Layers;
    case KeyKind::String:
    case KeyKind::Section:
      break;
  }
  return ExperimentKeyKind::String;
}

ExperimentKeyCondition conditionOf(const std::optional<KeyCondition>& own,
                                   const ExperimentKeyCondition& inherited) {
  if (!own) return inherited;
  return {own->path, own->values, own->negated};
}

void collect(const SchemaKey& section, const std::string& path, const ExperimentKeyCondition& condition,
             const Experiment& defaults, std::vector<ExperimentKey>& out) {
  for (const SchemaKey& key : section.children) {
    const std::string key_path = joinPath(path, key.name);
    const ExperimentKeyCondition applies = conditionOf(key.appliesWhen, condition);
    if (key.kind == KeyKind::Section) {
      collect(key, key_path, applies, defaults, out);
    } else {
      out.push_back({key_path, kindOf(key.kind), key.write ? key.write(defaults).dump() : std::string(),
                     key.choices, applies});
    }
  }
}

}  // namespace

bool ExperimentKeyCondition::heldBy(const std::string& value) const {
  if (path.empty()) return true;
  const bool listed = std::find(values.begin(), values.end(), value) != values.end();
  return listed != negated;
}

std::string ExperimentKeyCondition::describe() const {
  if (path.empty()) return {};
  std::string words;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) words += i + 1 == values.size() ? (negated ? " nor " : " or ") : ", ";
    words += values[i];
  }
  return path + (!negated ? " is " : values.size() > 1 ? " is neither " : " is not ") + words;
}

std::vector<ExperimentKey> experimentKeys() {
  std::vector<ExperimentKey> keys;
  collect(experimentSchema(), "", ExperimentKeyCondition{}, Experiment{}, keys);
  return keys;
}

const ExperimentKey* findExperimentKey(const std::string& path) {
  static const std::vector<ExperimentKey> keys = experimentKeys();
  const std::string key_path = path.substr(0, path.find('['));
  for (const ExperimentKey& key : keys) {
    if (key.path == key_path) return &key;
  }
  return nullptr;
}

}  // namespace wb
