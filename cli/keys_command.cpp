// workbench-cli keys: every key of the experiment file with its default, read from the schema the parser uses
// (so the list cannot drift from what the file accepts). `--names` is what shell completion reads.
#include <cstdio>
#include <iostream>

#include "cli_commands.h"
#include "experiment/experiment_schema.h"

namespace wb::cli {
namespace {

const char* kKeysHelp =
    "usage: workbench-cli keys [--names]\n"
    "\n"
    "Lists every key of the experiment file, as `--set` and the file spell it, with its default value.\n"
    "docs/experiment.md says what each one does.\n"
    "\n"
    "  --names  the key paths only, one a line (for scripts and shell completion)\n"
    "\n"
    "Examples:\n"
    "  workbench-cli keys | grep schedule\n"
    "  workbench-cli train --set schedule.warmup_steps=200\n";

void collect(const SchemaKey& section, const std::string& path, const Experiment& defaults,
             std::vector<std::pair<std::string, std::string>>& out) {
  for (const SchemaKey& key : section.children) {
    const std::string key_path = joinPath(path, key.name);
    if (key.kind == KeyKind::Section) {
      collect(key, key_path, defaults, out);
    } else {
      out.emplace_back(key_path, key.write ? key.write(defaults).dump() : std::string());
    }
  }
}

}  // namespace

int keysCommand(const std::vector<std::string>& args) {
  bool names = false;
  for (const std::string& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << kKeysHelp;
      return kExitOk;
    } else if (a == "--names") {
      names = true;
    } else {
      std::cerr << "error: unknown argument '" << a << "' for keys\n\n" << kKeysHelp;
      return kExitBadInput;
    }
  }
  std::vector<std::pair<std::string, std::string>> keys;
  collect(experimentSchema(), "", Experiment{}, keys);
  for (const auto& [path, value] : keys) {
    if (names) {
      std::printf("%s\n", path.c_str());
    } else {
      std::printf("%-36s %s\n", path.c_str(), value.c_str());
    }
  }
  return kExitOk;
}

}  // namespace wb::cli
