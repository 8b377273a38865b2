#include <iostream>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/run_state.h"
#include "workbench/training_run.h"

namespace wb::cli {

int resumeCommand(const std::vector<std::string>& args) {
  const char* help =
      "usage: workbench-cli resume RUN_DIR [--json] [--quiet] [--force]\n"
      "\n"
      "Continues an interrupted run (stopped, killed, or on a machine that went down) in its own folder "
      "from\n"
      "its latest good checkpoint: a damaged checkpoint is skipped with a warning and the previous one "
      "used.\n"
      "Its logs are cut back to that checkpoint and appended to, so no step appears twice. On the CPU the\n"
      "final weights are bit-identical to those of the same run left uninterrupted.\n"
      "\n"
      "  --json    print one JSON object with the run's summary on stdout at the end (as train --json)\n"
      "  --quiet   no progress, only errors (and the --json object)\n"
      "  --force   resume even though the run's experiment.json was changed since the checkpoint\n"
      "\n"
      "Examples:\n"
      "  workbench-cli resume runs/20261202-141500-cnn-fashion-mnist\n"
      "  workbench-cli resume runs/20261202-141500-cnn-fashion-mnist --force   # after editing "
      "experiment.json\n"
      "\n"
      "Exit status: 0 done, 2 bad input (not a run folder, already finished, changed experiment), 1 "
      "failure,\n"
      "130 / 143 interrupted again (resume it again).\n";
  ResumeRequest request;
  SessionOptions options;
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << help;
      return kExitOk;
    } else if (a == "--json") {
      options.json = true;
    } else if (a == "--quiet" || a == "-q") {
      options.quiet = true;
    } else if (a == "--force") {
      request.force = true;
    } else if (!a.empty() && a[0] != '-' && request.run_dir.empty()) {
      request.run_dir = a;
    } else {
      std::cerr << "error: unknown argument '" << a << "' for resume\n\n" << help;
      return kExitBadInput;
    }
  }
  if (request.run_dir.empty()) {
    std::cerr << "error: resume needs a run folder (`workbench-cli runs` lists them)\n\n" << help;
    return kExitBadInput;
  }
  // Refused here, before a session starts: a finished run, or a folder that is no run (the engine would
  // refuse too, but its session would then report a run that "failed after 0 steps", which this run did not).
  // Said once on stderr, and with --json as the object's "error" on stdout, as a refusal by the engine is.
  const auto refuse = [&](const std::string& message, const std::string& hint) {
    printError(message, hint);
    if (options.json) {
      const nlohmann::json out = {
          {"run_dir", request.run_dir},
          {"error", {{"kind", toString(ErrorKind::BadInput)}, {"message", message}, {"hint", hint}}}};
      std::cout << out.dump(2) << std::endl;
    }
    return kExitBadInput;
  };
  const RunState state = readRunState(request.run_dir);
  if (!state.folder || !state.experiment) {
    return refuse(
        request.run_dir + (state.folder ? " is not a run folder: it has no readable experiment.json"
                                        : " is not a run folder: it does not exist"),
        "Give the folder of an interrupted run (`workbench-cli runs` lists them with their status).");
  }
  if (state.finished()) {
    return refuse(
        "The run in " + request.run_dir + " is " + state.describe() + ": there is nothing to resume.",
        "Train it further as a new run: `workbench-cli train " + request.run_dir +
            "/experiment.json --set train.epochs=N`.");
  }
  std::optional<ProcessLaunch> launch;
  if (!readProcessLaunch(launch)) return kExitBadInput;
  const ParseResult parsed = loadExperimentFile(request.run_dir + "/experiment.json");
  options.epochs = parsed.ok() && parsed.experiment.train.epochs > 0 ? parsed.experiment.train.epochs : 1;
  return runSession(
      [&](TrainingRun::EventSink sink) {
        auto run = std::make_unique<TrainingRun>(request, std::move(sink));
        if (launch) run->setProcessLaunch(*launch);
        return run;
      },
      options);
}

}  // namespace wb::cli
