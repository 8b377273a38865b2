#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>

#include "cli_commands.h"
#include "event_queue.h"
#include "experiment_args.h"
#include "progress_printer.h"
#include "workbench/event_json.h"
#include "workbench/training_run.h"

namespace wb::cli {
namespace {

std::atomic<int> g_signal{0};

void onSignal(int signal) {
  // A second Ctrl-C while the run winds down means "now".
  if (g_signal.exchange(signal) != 0) _exit(128 + signal);
}

const char* kTrainHelp =
    "usage: workbench-cli train [EXPERIMENT.json] [--set key.path=value ...] [--json]\n"
    "\n"
    "Trains the experiment (the default: the CNN on Fashion-MNIST) and writes a run folder under\n"
    "output.runs_dir with the resolved experiment, metrics.jsonl, train.log, model.pt and summary.json.\n"
    "\n"
    "  --set key.path=value  override one key; the value is read as JSON when it parses, else as a string,\n"
    "                        e.g. --set train.epochs=1 --set 'train.devices=[\"cpu\"]' --set model.preset=mlp\n"
    "  --json                print one JSON object with the run's summary on stdout at the end\n"
    "                        (progress then goes to stderr)\n"
    "  --quiet               no progress, only errors (and the --json object)\n"
    "\n"
    "Ctrl-C stops after the step in flight, then tests and saves what was trained (a second Ctrl-C quits).\n"
    "Exit status: 0 done, 2 bad input, 1 failure, 130 interrupted.\n";

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

  std::FILE* progress_out = json ? stderr : stdout;
  const int64_t epochs = experiment->train.epochs > 0 ? experiment->train.epochs : 1;
  ProgressPrinter printer(progress_out, ::isatty(::fileno(progress_out)) != 0, epochs);

  EventQueue queue;
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  TrainingRun run(*experiment, [&queue](EventBatch&& batch) { queue.push(std::move(batch)); });
  run.start();

  std::optional<RunError> error;
  bool finished = false;
  bool stop_sent = false;
  while (!finished) {
    if (g_signal.load() != 0 && !stop_sent) {
      stop_sent = true;
      run.requestStop();
      if (!quiet) std::fprintf(progress_out, "\nStopping after the current step (Ctrl-C again to quit now)...\n");
    }
    for (EventBatch& batch : queue.take(std::chrono::milliseconds(100))) {
      for (const Event& e : batch) {
        if (const auto* err = std::get_if<RunError>(&e)) error = *err;
        if (std::holds_alternative<RunFinished>(e)) finished = true;
      }
      if (!quiet) {
        printer.print(batch);
      } else if (error) {
        std::fprintf(stderr, "error: %s\n  what to do: %s\n", error->message.c_str(), error->hint.c_str());
      }
    }
  }
  run.wait();
  printer.finish();
  const RunSummary summary = run.summary();
  if (json) {
    nlohmann::json out = summaryToJson(summary);
    if (error) out["error"] = {{"kind", toString(error->kind)}, {"message", error->message}, {"hint", error->hint}};
    std::cout << out.dump(2) << std::endl;
  }
  if (summary.status == RunStatus::Failed) return error && error->kind == ErrorKind::BadInput ? kExitBadInput : kExitFailure;
  if (g_signal.load() != 0) return 128 + g_signal.load();
  return kExitOk;
}

}  // namespace wb::cli
