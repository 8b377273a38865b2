#include <iostream>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/run_state.h"
#include "workbench/training_run.h"

namespace wb::cli {
namespace {

struct ResumeOptions {
  ResumeRequest request;
  SessionOptions session;
};

// Refused here, before a session starts: a finished run, or a folder that is no run (the engine would refuse
// too, but its session would then report a run that "failed after 0 steps", which this run did not). Said
// once on stderr, and with --json as the object's "error" on stdout, as a refusal by the engine is.
int refuse(const ResumeOptions& o, const std::string& message, const std::string& hint) {
  printError(message, hint);
  if (o.session.json) {
    const nlohmann::json out = {
        {"run_dir", o.request.run_dir},
        {"error", {{"kind", toString(ErrorKind::BadInput)}, {"message", message}, {"hint", hint}}}};
    std::cout << out.dump(2) << std::endl;
  }
  return kExitBadInput;
}

int resume(ResumeOptions o) {
  const std::string& run_dir = o.request.run_dir;
  const RunState state = readRunState(run_dir);
  if (!state.folder || !state.experiment) {
    return refuse(
        o,
        run_dir + (state.folder ? " is not a run folder: it has no readable experiment.json"
                                : " is not a run folder: it does not exist"),
        "Give the folder of an interrupted run (`workbench-cli runs` lists them with their status).");
  }
  if (state.finished()) {
    return refuse(o, "The run in " + run_dir + " is " + state.describe() + ": there is nothing to resume.",
                  "Train it further as a new run: `workbench-cli train " + run_dir +
                      "/experiment.json --set train.epochs=N`.");
  }
  std::optional<ProcessLaunch> launch;
  if (!readProcessLaunch(launch)) return kExitBadInput;
  const ParseResult parsed = loadExperimentFile(run_dir + "/experiment.json");
  o.session.epochs = parsed.ok() && parsed.experiment.train.epochs > 0 ? parsed.experiment.train.epochs : 1;
  return runSession(
      [&](TrainingRun::EventSink sink) {
        auto run = std::make_unique<TrainingRun>(o.request, std::move(sink));
        if (launch) run->setProcessLaunch(*launch);
        return run;
      },
      o.session);
}

}  // namespace

void addResumeCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "resume",
      "continue an interrupted run from its checkpoint\n"
      "Continues an interrupted run (stopped, killed, or on a machine that went down) in its own folder from "
      "its "
      "latest good checkpoint: a damaged checkpoint is skipped with a warning and the previous one used. Its "
      "logs are cut back to that checkpoint and appended to, so no step appears twice. On the CPU the final "
      "weights are bit-identical to those of the same run left uninterrupted.",
      "Examples:\n"
      "  workbench-cli resume runs/20261202-141500-cnn-fashion-mnist\n"
      "  workbench-cli resume runs/20261202-141500-cnn-fashion-mnist --force   # after editing "
      "experiment.json\n"
      "\n"
      "Exit status: 0 done, 2 bad input (not a run folder, already finished, changed experiment), 1 "
      "failure,\n"
      "130 / 143 interrupted again (resume it again).\n");
  auto o = std::make_shared<ResumeOptions>();
  command->add_option("RUN_DIR", o->request.run_dir, "the run's folder (`workbench-cli runs` lists them)")
      ->required();
  command->add_flag("--json", o->session.json,
                    "print one JSON object with the run's summary on stdout at the end (as train --json)");
  command->add_flag("-q,--quiet", o->session.quiet, "no progress, only errors (and the --json object)");
  command->add_flag("--force", o->request.force,
                    "resume even though the run's experiment.json was changed since the checkpoint");
  setAction(command, [o] { return resume(*o); });
}

}  // namespace wb::cli
