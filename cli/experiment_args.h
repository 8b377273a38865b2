#pragma once
// The arguments train and bench share: an optional experiment file and --set overrides, turned into a
// validated experiment. Problems are printed with their JSON paths.

#include <optional>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb::cli {

struct ExperimentArgs {
  std::string file;     // empty: the default experiment
  std::string example;  // --example NAME: an installed example (workbench-cli examples) instead
  std::vector<std::string> overrides;  // "key.path=value"
};

// Consumes --set (and --set=) and --example from args; sets `file` from the first positional. Other options
// are left in `rest`, with the value that follows each of `value_options` (e.g. "--steps"). Returns false
// (after printing) on a malformed command line.
bool parseExperimentArgs(const std::vector<std::string>& args, ExperimentArgs& out,
                         std::vector<std::string>& rest, const std::vector<std::string>& value_options = {});

// Reads the file (or the defaults), applies overrides, validates (schema, then the engine's checks).
// Prints every issue to stderr and returns nullopt when there is any.
std::optional<Experiment> resolveExperiment(const ExperimentArgs& args, bool engine_checks = true);

}  // namespace wb::cli
