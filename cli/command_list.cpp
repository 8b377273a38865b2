// The commands of workbench-cli, listed once: dispatch, `help`, the usage text and "did you mean" all read
// this table. Each command prints its own help for `--help`; `help COMMAND` asks it for that.
#include <iostream>
#include <string>
#include <vector>

#include "cli_commands.h"
#include "workbench/did_you_mean.h"
#include "workbench/system_info.h"

namespace wb::cli {
namespace {

struct Command {
  const char* name;
  const char* synopsis;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"train", "[EXPERIMENT.json | --example NAME] [--set key=value ...] [--json]",
       "train an experiment (default: CNN on Fashion-MNIST)", trainCommand},
      {"resume", "RUN_DIR [--json] [--force]", "continue an interrupted run from its checkpoint",
       resumeCommand},
      {"runs", "[show ID | compare A B] [--runs-dir DIR]", "list, show and compare runs", runsCommand},
      {"queue", "add EXPERIMENT.json | list | run | remove|hold|release|move ID",
       "queue experiments in a runs folder and train them one after another", queueCommand},
      {"sweep", "start EXPERIMENT.json --sweep SWEEP.json [--run] | show NAME | list",
       "try several values of an experiment's keys as queued runs, and compare them", sweepCommand},
      {"control", "RUN_DIR ACTION [--at-step N]", "change a live run: learning rate, stop, checkpoint",
       controlCommand},
      {"eval", "RUN_DIR [--model ARTIFACT] [--json]",
       "evaluate a run's model (or an artifact) on its test split", evalCommand},
      {"compress", "RUN_DIR|EXPERIMENT [--set compress...] [--json]",
       "prune, distill, quantize; compare with the original", compressCommand},
      {"export", "RUN_DIR [--model ARTIFACT] --format F --out FILE",
       "write torchscript, onnx or safetensors for other tools", exportCommand},
      {"bench", "[EXPERIMENT.json] [--steps N] [--set ...]", "time training steps, print samples/s",
       benchCommand},
      {"find-lr", "[EXPERIMENT.json] [--steps N] [--apply FILE] [--json]",
       "learning-rate range test: loss against lr, a suggested lr", findLrCommand},
      {"find-batch", "[EXPERIMENT.json] [--max-memory SIZE] [--json]",
       "the largest batch that fits the device's memory", findBatchCommand},
      {"check", "[EXPERIMENT.json | --example NAME] [--set ...]", "check an experiment without training it",
       checkCommand},
      {"examples", "[NAME]", "list the example experiments, or print one", examplesCommand},
      {"keys", "[--names]", "list every key of the experiment file with its default", keysCommand},
      {"info", "", "LibTorch, BLAS, threads and devices", infoCommand},
  };
  return list;
}

const Command* findCommand(const std::string& name) {
  for (const Command& c : commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

void printUsage(std::ostream& out) {
  out << "usage: workbench-cli COMMAND [ARGS]\n"
         "       workbench-cli help [COMMAND]\n"
         "       workbench-cli --version\n"
         "\n"
         "Commands:\n";
  for (const Command& c : commands()) {
    std::string line = std::string("  ") + c.name + " " + c.synopsis;
    if (line.size() < 58) {
      line.resize(58, ' ');
    } else {
      line += "\n" + std::string(58, ' ');
    }
    out << line << " " << c.summary << "\n";
  }
  out << "\n"
         "`workbench-cli help COMMAND` (or `workbench-cli COMMAND --help`) describes each, with examples.\n"
         "Experiment keys: `workbench-cli keys`, docs/experiment.md. Examples to start from: `workbench-cli "
         "examples`.\n";
}

std::vector<std::string> commandNames() {
  std::vector<std::string> names;
  for (const Command& c : commands()) names.push_back(c.name);
  names.push_back("help");
  return names;
}

int unknownCommand(const std::string& name) {
  std::cerr << "error: unknown command '" << name << "'";
  const std::string suggestion = didYouMean(name, commandNames());
  if (!suggestion.empty()) std::cerr << "; did you mean '" << suggestion << "'?";
  std::cerr << "\n  what to do: `workbench-cli help` lists the commands\n";
  return kExitBadInput;
}

int helpCommand(const std::vector<std::string>& args) {
  if (args.empty()) {
    printUsage(std::cout);
    return kExitOk;
  }
  if (args[0] == "--commands") {  // for shell completion: the command words, one a line
    for (const std::string& name : commandNames()) std::cout << name << "\n";
    return kExitOk;
  }
  if (args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout
        << "usage: workbench-cli help [COMMAND]\n\nLists the commands, or describes one: its arguments, "
           "options and examples (the same as `workbench-cli COMMAND --help`).\n\nExamples:\n"
           "  workbench-cli help\n  workbench-cli help train\n";
    return kExitOk;
  }
  const Command* command = findCommand(args[0]);
  if (!command) return unknownCommand(args[0]);
  return command->run({"--help"});
}

int versionCommand() {
  std::cout << describeVersions(queryVersions(), "workbench-cli");
  return kExitOk;
}

}  // namespace

int runCommandLine(const std::vector<std::string>& args_in) {
  if (args_in.empty()) {
    printUsage(std::cerr);
    return kExitBadInput;
  }
  std::vector<std::string> args = args_in;
  const std::string word = args[0];
  args.erase(args.begin());
  if (word == "--help" || word == "-h" || word == "help") return helpCommand(args);
  if (word == "--version" || word == "version") return versionCommand();
  if (const Command* command = findCommand(word)) return command->run(args);
  return unknownCommand(word);
}

}  // namespace wb::cli
