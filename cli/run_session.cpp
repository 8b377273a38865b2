#include "run_session.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli_commands.h"
#include "event_queue.h"
#include "progress_printer.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"

namespace wb::cli {
namespace {

std::atomic<int> g_signal{0};
// SIGUSR1 / SIGUSR2 since the loop below last looked; they ask for something, they do not end the process.
std::atomic<bool> g_checkpoint_signal{false};
std::atomic<bool> g_stop_after_epoch_signal{false};

void onSignal(int signal) {
  // A second Ctrl-C while the run winds down means "now".
  if (g_signal.exchange(signal) != 0) _exit(128 + signal);
}

void onRequestSignal(int signal) {
  if (signal == SIGUSR1) g_checkpoint_signal = true;
  if (signal == SIGUSR2) g_stop_after_epoch_signal = true;
}

}  // namespace

void printError(const std::string& message, const std::string& hint) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  if (!hint.empty()) std::fprintf(stderr, "  what to do: %s\n", hint.c_str());
}

int runSession(const std::function<std::unique_ptr<TrainingRun>(TrainingRun::EventSink)>& make,
               const SessionOptions& options) {
  std::unique_ptr<TrainingRun> run;
  return watchSession(
      [&](TrainingRun::EventSink sink) {
        run = make(std::move(sink));
        run->start();
        return SessionJob{[&run] { run->requestStop(); }, [&run] { run->wait(); },
                          [&run] { run->requestCheckpoint(); }, [&run] { run->stopAfterEpoch("SIGUSR2"); }};
      },
      options, [](const RunSummary& summary) { return summaryToJson(summary); });
}

bool readProcessLaunch(std::optional<ProcessLaunch>& launch) {
  try {
    launch = processLaunchFromEnvironment();
  } catch (const UserError& e) {
    printError(e.what(), e.hint());
    return false;
  }
  if (launch && launch->world_size <= 1) launch.reset();  // a job of one process trains as if alone
  return true;
}

int watchSession(const std::function<SessionJob(TrainingRun::EventSink)>& start,
                 const SessionOptions& options,
                 const std::function<nlohmann::json(const RunSummary&)>& result_json) {
  std::FILE* progress_out = options.json ? stderr : stdout;
  ProgressPrinter printer(progress_out, ::isatty(::fileno(progress_out)) != 0, options.epochs);

  EventQueue queue;
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  std::signal(SIGUSR1, onRequestSignal);
  std::signal(SIGUSR2, onRequestSignal);
  SessionJob job = start([&queue](EventBatch&& batch) { queue.push(std::move(batch)); });

  std::optional<RunError> error;
  RunSummary summary;
  bool finished = false;
  bool stop_sent = false;
  while (!finished) {
    if (g_signal.load() != 0 && !stop_sent) {
      stop_sent = true;
      job.request_stop();
      if (!options.quiet) {
        std::fprintf(progress_out,
                     "\nStopping after the current step with a checkpoint (again to quit now)...\n");
      }
    }
    if (g_checkpoint_signal.exchange(false)) {
      if (job.request_checkpoint) {
        job.request_checkpoint();
      } else if (!options.quiet) {
        std::fprintf(progress_out, "\nSIGUSR1 ignored: this job writes no checkpoints on request.\n");
      }
    }
    if (g_stop_after_epoch_signal.exchange(false)) {
      if (job.stop_after_epoch) {
        job.stop_after_epoch();  // the run's own line says at which epoch it stops
      } else if (!options.quiet) {
        std::fprintf(progress_out, "\nSIGUSR2 ignored: this job has no epochs to stop after.\n");
      }
    }
    for (EventBatch& batch : queue.take(std::chrono::milliseconds(100))) {
      for (const Event& e : batch) {
        if (const auto* err = std::get_if<RunError>(&e)) {
          // The first error is the cause (the exit status and the --json "error"); a later one (the summary
          // could not be written) is printed too, but does not replace it.
          if (!error) error = *err;
          // Quiet: each error once, on stderr; otherwise the printer prints it (also on stderr).
          if (options.quiet) printError(err->message, err->hint);
        }
        if (const auto* done = std::get_if<RunFinished>(&e)) {
          summary = done->summary;
          finished = true;
        }
      }
      if (!options.quiet) printer.print(batch);
    }
  }
  job.wait();
  printer.finish();
  if (options.on_end) options.on_end(summary, error);
  if (options.json) {
    nlohmann::json out = result_json(summary);
    if (error)
      out["error"] = {{"kind", toString(error->kind)}, {"message", error->message}, {"hint", error->hint}};
    std::cout << out.dump(2) << std::endl;
  }
  if (summary.status == RunStatus::Failed) {
    const bool bad_input =
        error && (error->kind == ErrorKind::BadInput || error->kind == ErrorKind::ExperimentChanged);
    return bad_input ? kExitBadInput : kExitFailure;
  }
  if (g_signal.load() != 0) return 128 + g_signal.load();
  return kExitOk;
}

}  // namespace wb::cli
