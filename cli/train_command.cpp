#include <iostream>

#include "cli_commands.h"
#include "experiment_args.h"
#include "run_session.h"
#include "workbench/training_run.h"

namespace wb::cli {
namespace {

const char* kTrainHelp =
    "usage: workbench-cli train [EXPERIMENT.json | --example NAME] [--set key.path=value ...] [--json]\n"
    "\n"
    "Trains the experiment (the default: the CNN on Fashion-MNIST) and writes a run folder under\n"
    "output.runs_dir with the resolved experiment, metrics.jsonl, metrics.csv, a TensorBoard event file,\n"
    "train.log, checkpoints/, model.pt and summary.json, and lists the run in output.runs_dir/runs.sqlite.\n"
    "\n"
    "  --set key.path=value  override one key; the value is read as JSON when it parses, else as a string,\n"
    "                        e.g. --set train.epochs=1 --set 'train.devices=[\"cpu\"]' --set "
    "model.preset=mlp\n"
    "  --json                print one JSON object with the run's summary on stdout at the end\n"
    "                        (progress then goes to stderr)\n"
    "  --quiet               no progress, only errors (and the --json object)\n"
    "  --example NAME        train an installed example (`workbench-cli examples` lists them)\n"
    "\n"
    "Several train.devices train data parallel in this process (one rank per device). Started by torchrun\n"
    "(torchrun --no-python --nproc-per-node=N workbench-cli train EXP.json) or srun, each process trains "
    "one\n"
    "rank (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT; or SLURM_PROCID, SLURM_NTASKS, ...).\n"
    "\n"
    "Ctrl-C or SIGTERM stops after the step in flight and writes a checkpoint; the run is marked "
    "interrupted\n"
    "and `workbench-cli resume RUN_DIR` continues it (a second Ctrl-C quits at once).\n"
    "\n"
    "Examples:\n"
    "  workbench-cli train                                   # the default experiment\n"
    "  workbench-cli train --example mlp                     # an example, in a minute on a CPU\n"
    "  workbench-cli train my.json --set train.epochs=1 --set data.limit=5000 --set model.preset=mlp\n"
    "  workbench-cli train my.json --json > summary.json\n"
    "\n"
    "Exit status: 0 done, 2 bad input, 1 failure, 130 interrupted (SIGINT), 143 (SIGTERM).\n";

}  // namespace

int trainCommand(const std::vector<std::string>& args) {
  ExperimentArgs exp_args;
  std::vector<std::string> rest;
  if (!parseExperimentArgs(args, exp_args, rest)) return kExitBadInput;
  bool json = false, quiet = false;
  for (const auto& a : rest) {
    if (a == "--help" || a == "-h") {
      std::cout << kTrainHelp;
      return kExitOk;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--quiet" || a == "-q") {
      quiet = true;
    } else {
      std::cerr << "error: unknown argument '" << a << "' for train\n\n" << kTrainHelp;
      return kExitBadInput;
    }
  }
  const std::optional<Experiment> experiment = resolveExperiment(exp_args);
  if (!experiment) return kExitBadInput;
  std::optional<ProcessLaunch> launch;
  if (!readProcessLaunch(launch)) return kExitBadInput;

  SessionOptions options;
  options.json = json;
  options.quiet = quiet;
  options.epochs = experiment->train.epochs > 0 ? experiment->train.epochs : 1;
  return runSession(
      [&](TrainingRun::EventSink sink) {
        auto run = std::make_unique<TrainingRun>(*experiment, std::move(sink));
        if (launch) run->setProcessLaunch(*launch);
        return run;
      },
      options);
}

}  // namespace wb::cli
