#include <iostream>

#include "cli_commands.h"
#include "experiment_args.h"
#include "profile_args.h"
#include "run_session.h"
#include "workbench/training_run.h"

namespace wb::cli {
namespace {

struct TrainOptions {
  ExperimentArgs experiment;
  bool json = false;
  bool quiet = false;
  std::string profile;  // --profile START:N
};

int train(const TrainOptions& o) {
  const std::optional<Experiment> experiment = resolveExperiment(o.experiment);
  if (!experiment) return kExitBadInput;
  std::optional<ProcessLaunch> launch;
  if (!readProcessLaunch(launch)) return kExitBadInput;

  SessionOptions options;
  options.json = o.json;
  options.quiet = o.quiet;
  options.epochs = experiment->train.epochs > 0 ? experiment->train.epochs : 1;
  return runSession(
      [&](TrainingRun::EventSink sink) {
        auto run = std::make_unique<TrainingRun>(*experiment, std::move(sink));
        if (launch) run->setProcessLaunch(*launch);
        if (!o.profile.empty()) {
          ProfileRequest request = *parseProfileSpan(o.profile);
          request.source = "workbench-cli train --profile";
          request.required = true;
          run->requestProfile(request);
        }
        return run;
      },
      options);
}

}  // namespace

void addTrainCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "train",
      "train an experiment (default: CNN on Fashion-MNIST)\n"
      "Trains the experiment (the default: the CNN on Fashion-MNIST) and writes a run folder under "
      "output.runs_dir with the resolved experiment, metrics.jsonl, metrics.csv, a TensorBoard event file, "
      "train.log, checkpoints/, model.pt and summary.json, and lists the run in "
      "output.runs_dir/runs.sqlite.\n"
      "\n"
      "Several train.devices train data parallel in this process (one rank per device). Started by torchrun "
      "(torchrun --no-python --nproc-per-node=N workbench-cli train EXP.json) or srun, each process trains "
      "one "
      "rank (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT; or SLURM_PROCID, SLURM_NTASKS, ...).\n"
      "\n"
      "Ctrl-C or SIGTERM stops after the step in flight and writes a checkpoint; the run is marked "
      "interrupted "
      "and `workbench-cli resume RUN_DIR` continues it (a second Ctrl-C quits at once).",
      "Examples:\n"
      "  workbench-cli train                                   # the default experiment\n"
      "  workbench-cli train --example mlp                     # an example, in a minute on a CPU\n"
      "  workbench-cli train my.json --set train.epochs=1 --set data.limit=5000 --set model.preset=mlp\n"
      "  workbench-cli train my.json --json > summary.json\n"
      "  workbench-cli train my.json --profile 100:20          # steps 101-120 profiled\n"
      "\n"
      "Exit status: 0 done, 2 bad input, 1 failure, 130 interrupted (SIGINT), 143 (SIGTERM).\n");
  auto o = std::make_shared<TrainOptions>();
  addExperimentArgs(command, o->experiment);
  command->add_flag(
      "--json", o->json,
      "print one JSON object with the run's summary on stdout at the end (progress then goes to "
      "stderr)");
  command->add_flag("-q,--quiet", o->quiet, "no progress, only errors (and the --json object)");
  command
      ->add_option("--profile", o->profile,
                   "record N optimizer steps after the first START with LibTorch's profiler: the trace, "
                   "table and report go to the run folder's profile/ (see `workbench-cli profile`)")
      ->type_name("START:N")
      ->check(profileSpanCheck());
  setAction(command, [o] { return train(*o); });
}

}  // namespace wb::cli
