#pragma once
// The arguments every command that reads an experiment shares (train, check, bench, compress, find-lr,
// find-batch, queue add, sweep start): an optional experiment file, --example and --set overrides, turned
// into a validated experiment. Problems are printed with their JSON paths.

#include <optional>
#include <string>
#include <vector>

#include "cli_app.h"
#include "workbench/experiment.h"

namespace wb::cli {

struct ExperimentArgs {
  std::string file;     // empty: the default experiment
  std::string example;  // --example NAME: an installed example (workbench-cli examples) instead
  std::vector<std::string> overrides;  // "key.path=value"
};

// Adds EXPERIMENT.json (the argument; `file_name` and `file_help` for a command that also takes a run folder
// there), --set and --example to `command`, read into `args`.
void addExperimentArgs(CLI::App* command, ExperimentArgs& args,
                       const std::string& file_name = "EXPERIMENT.json",
                       const std::string& file_help =
                           "the experiment file (default: the default experiment, "
                           "`workbench-cli keys` lists its values)");

// Reads the file (or the defaults), applies overrides, validates (schema, then the engine's checks).
// Prints every issue to stderr and returns nullopt when there is any.
std::optional<Experiment> resolveExperiment(const ExperimentArgs& args, bool engine_checks = true);

}  // namespace wb::cli
