#include "workbench/experiment_keys.h"

#include <algorithm>
#include <limits>

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

// Whether the key's own check accepts `value` (cross-key checks aside).
bool accepts(const SchemaKey& key, int64_t value) {
  IssueList issues;
  Experiment scratch;
  key.read(nlohmann::json(value), key.name, issues, scratch);
  return issues.issues().empty();
}

// The value halfway from `low` to `high` (low < high), without overflow across the whole int64 range.
int64_t halfway(int64_t low, int64_t high) {
  return static_cast<int64_t>(static_cast<uint64_t>(low) +
                              (static_cast<uint64_t>(high) - static_cast<uint64_t>(low)) / 2);
}

// The accepted value farthest from `accepted` towards `refused` (an integer rule is one interval).
int64_t edge(const SchemaKey& key, int64_t accepted, int64_t refused) {
  while (accepted < refused ? halfway(accepted, refused) != accepted
                            : halfway(refused, accepted) != refused) {
    const int64_t mid = accepted < refused ? halfway(accepted, refused) : halfway(refused, accepted);
    (accepts(key, mid) ? accepted : refused) = mid;
  }
  return accepted;
}

// An integer key's range lives in its reader's rule: it is read back from the reader by bisection from the
// default (accepted), so a form's range cannot drift from what the engine accepts.
void findRange(const SchemaKey& key, const Experiment& defaults, ExperimentKey& out) {
  if (key.kind != KeyKind::Integer || !key.read || !key.write) return;
  const nlohmann::json start = key.write(defaults);
  if (!start.is_number_integer() || !accepts(key, start.get<int64_t>())) return;
  const int64_t from = start.get<int64_t>();
  if (!accepts(key, out.minimum)) out.minimum = edge(key, from, out.minimum);
  if (!accepts(key, out.maximum)) out.maximum = edge(key, from, out.maximum);
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
      findRange(key, defaults, out.back());
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
