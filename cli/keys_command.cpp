// workbench-cli keys: every key of the experiment file with its default, read from the schema the parser uses
// (so the list cannot drift from what the file accepts). `--names` is what shell completion reads.
#include <cstdio>
#include <iostream>

#include "cli_commands.h"
#include "workbench/experiment_keys.h"

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
  for (const ExperimentKey& key : experimentKeys()) {
    if (names) {
      std::printf("%s\n", key.path.c_str());
    } else {
      std::printf("%-36s %s\n", key.path.c_str(), key.default_value.c_str());
    }
  }
  return kExitOk;
}

}  // namespace wb::cli
