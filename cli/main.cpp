// workbench-cli: the headless front door onto the engine (a peer of the window, not an afterthought).
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "cli_commands.h"
#include "workbench/system_info.h"

namespace {

const char* kUsage =
    "usage: workbench-cli COMMAND [ARGS]\n"
    "\n"
    "Commands:\n"
    "  train [EXPERIMENT.json] [--set key=value ...] [--json]   train an experiment (default: CNN on Fashion-MNIST)\n"
    "  resume RUN_DIR [--json] [--force]                        continue an interrupted run from its checkpoint\n"
    "  runs [show ID | compare A B] [--runs-dir DIR]            list, show and compare runs\n"
    "  eval RUN_DIR [--model ARTIFACT] [--json]                 evaluate a run's model (or an artifact) on its test split\n"
    "  compress RUN_DIR|EXPERIMENT [--set compress...] [--json] prune, distill, quantize; compare with the original\n"
    "  export RUN_DIR [--model ARTIFACT] --format F --out FILE  write torchscript, onnx or safetensors for other tools\n"
    "  bench [EXPERIMENT.json] [--steps N] [--set ...]          time training steps, print samples/s\n"
    "  info                                                     LibTorch, BLAS, threads and devices\n"
    "\n"
    "`workbench-cli COMMAND --help` describes each. Experiment keys: docs/experiment.md.\n";

}  // namespace

int main(int argc, char** argv) {
  wb::ensurePassiveOpenMpWait(argv);
  // Past a file size limit (ulimit -f) a write should fail with EFBIG, which the engine reports with what to
  // do, instead of the process being killed by SIGXFSZ mid-checkpoint.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? wb::cli::kExitBadInput : wb::cli::kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "train") return wb::cli::trainCommand(args);
  if (command == "resume") return wb::cli::resumeCommand(args);
  if (command == "runs") return wb::cli::runsCommand(args);
  if (command == "eval") return wb::cli::evalCommand(args);
  if (command == "bench") return wb::cli::benchCommand(args);
  if (command == "info") return wb::cli::infoCommand(args);
  if (command == "compress") return wb::cli::compressCommand(args);
  if (command == "export") return wb::cli::exportCommand(args);
  std::cerr << "error: unknown command '" << command << "'\n\n" << kUsage;
  return wb::cli::kExitBadInput;
}
