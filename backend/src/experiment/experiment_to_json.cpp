// experimentToJson: every key of the schema, written from the experiment, so the file a run folder stores is
// complete and parseExperiment reads it back to the same experiment.

#include "experiment/experiment_schema.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

nlohmann::json writeSection(const SchemaKey& section, const Experiment& experiment) {
  nlohmann::json result = nlohmann::json::object();
  for (const SchemaKey& key : section.children) {
    result[key.name] = key.kind == KeyKind::Section ? writeSection(key, experiment) : key.write(experiment);
  }
  return result;
}

}  // namespace

nlohmann::json experimentToJson(const Experiment& experiment) {
  return writeSection(experimentSchema(), experiment);
}

}  // namespace wb
