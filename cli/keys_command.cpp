// workbench-cli keys: every key of the experiment file with its default, the words it takes and when it
// matters, read from the schema the parser uses (so the list cannot drift from what the file accepts).
// `--names` is what shell completion reads.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli_commands.h"
#include "workbench/experiment_keys.h"

namespace wb::cli {
namespace {

int keys(bool names) {
  for (const ExperimentKey& key : experimentKeys()) {
    if (names) {
      std::printf("%s\n", key.path.c_str());
    } else {
      std::string about;
      if (!key.choices.empty()) {
        about = "one of:";
        for (const std::string& choice : key.choices) about += " " + choice;
      }
      if (!key.applies_when.path.empty()) {
        about += (about.empty() ? "" : "; ") + ("when " + key.applies_when.describe());
      }
      std::string line = key.path;
      line.resize(std::max<size_t>(line.size() + 1, 37), ' ');
      line += key.default_value;
      if (!about.empty()) {
        line.resize(std::max<size_t>(line.size() + 2, 52), ' ');
        line += about;
      }
      std::printf("%s\n", line.c_str());
    }
  }
  return kExitOk;
}

}  // namespace

void addKeysCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "keys",
      "list every key of the experiment file with its default\n"
      "Lists every key of the experiment file, as `--set` and the file spell it, with its default value, the "
      "words it takes when it takes one of a set, and when it matters (e.g. optimizer.betas: only for Adam). "
      "docs/experiment.md says what each one does.",
      "Examples:\n"
      "  workbench-cli keys | grep schedule\n"
      "  workbench-cli train --set schedule.warmup_steps=200\n");
  auto names = std::make_shared<bool>(false);
  command->add_flag("--names", *names, "the key paths only, one a line (for scripts and shell completion)");
  setAction(command, [names] { return keys(*names); });
}

}  // namespace wb::cli
