#include "workbench/experiment_keys.h"

#include "experiment/experiment_schema.h"

namespace wb {
namespace {

ExperimentKeyKind kindOf(KeyKind kind) {
  switch (kind) {
    case KeyKind::Boolean: return ExperimentKeyKind::Boolean;
    case KeyKind::Integer: return ExperimentKeyKind::Integer;
    case KeyKind::Number: return ExperimentKeyKind::Number;
    case KeyKind::List: return ExperimentKeyKind::List;
    case KeyKind::Layers: return ExperimentKeyKind::Layers;
    case KeyKind::String:
    case KeyKind::Section: break;
  }
  return ExperimentKeyKind::String;
}

void collect(const SchemaKey& section, const std::string& path, const Experiment& defaults,
             std::vector<ExperimentKey>& out) {
  for (const SchemaKey& key : section.children) {
    const std::string key_path = joinPath(path, key.name);
    if (key.kind == KeyKind::Section) {
      collect(key, key_path, defaults, out);
    } else {
      out.push_back({key_path, kindOf(key.kind), key.write ? key.write(defaults).dump() : std::string()});
    }
  }
}

}  // namespace

std::vector<ExperimentKey> experimentKeys() {
  std::vector<ExperimentKey> keys;
  collect(experimentSchema(), "", Experiment{}, keys);
  return keys;
}

}  // namespace wb
