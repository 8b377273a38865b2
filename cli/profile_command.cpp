// workbench-cli profile: trains only as far as a profile needs (a warm-up, then the profiled steps) in a run
// folder of its own, records those steps with LibTorch's profiler and prints the operator table.
#include <cstdio>
#include <filesystem>

#include "cli_commands.h"
#include "experiment_args.h"
#include "profile_args.h"
#include "run_session.h"
#include "workbench/errors.h"
#include "workbench/training_run.h"

namespace wb::cli {

std::optional<ProfileRequest> parseProfileSpan(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  int64_t start = -1, steps = 0;
  if (!parseWholeNumber(text.substr(0, colon), start) || !parseWholeNumber(text.substr(colon + 1), steps) ||
      start < 0 || steps < 1) {
    return std::nullopt;
  }
  ProfileRequest request;
  request.first_step = start;
  request.steps = steps;
  return request;
}

CLI::Validator profileSpanCheck() {
  return takes("START:N, N steps after the first START (e.g. --profile 50:10 records steps 51-60)",
               [](const std::string& text) { return parseProfileSpan(text).has_value(); });
}

void printProfile(const ProfileReport& report, ProfileSort sort, int64_t rows) {
  std::printf("Profile of steps %lld-%lld on %s (%s profiler%s%s)\n\n",
              static_cast<long long>(report.first_step + 1),
              static_cast<long long>(report.first_step + report.steps), report.device.c_str(),
              wordString(report.profiler).c_str(), report.cuda_activities ? ", CUDA activities" : "",
              report.world_size > 1 ? (", rank 0 of " + std::to_string(report.world_size)).c_str() : "");
  std::fputs(formatProfileTable(report, sort, rows).c_str(), stdout);
  std::printf(
      "\nTable:  %s\nReport: %s\nTrace:  %s\n        (open it in https://ui.perfetto.dev or "
      "chrome://tracing)\n",
      report.table_path.c_str(), report.report_path.c_str(), report.trace_path.c_str());
}

namespace {

struct ProfileOptions {
  ExperimentArgs experiment;
  int64_t steps = 0;
  int64_t warmup = 5;
  std::string sort = "self_cpu";
  int64_t rows = 25;
  bool no_shapes = false;
  bool no_memory = false;
  bool quiet = false;
};

// The report the run wrote for `request`, from its folder.
std::optional<ProfileReport> recordedProfile(const std::string& run_dir, const ProfileRequest& request) {
  for (const std::string& path : profileReportPaths(run_dir)) {
    ProfileReport report = readProfileReport(path);
    if (report.first_step == request.first_step) return report;
  }
  return std::nullopt;
}

int profile(const ProfileOptions& o) {
  std::optional<Experiment> experiment = resolveExperiment(o.experiment);
  if (!experiment) return kExitBadInput;
  std::optional<ProcessLaunch> launch;
  if (!readProcessLaunch(launch)) return kExitBadInput;
  // Just enough training: the warm-up (first steps pay for allocations, autotuning and caches) and the
  // profiled steps; the run's plan may end sooner, which the run then refuses with its step count.
  const int64_t needed = o.warmup + o.steps;
  experiment->train.max_steps =
      experiment->train.max_steps > 0 ? std::min(experiment->train.max_steps, needed) : needed;
  // A constant learning rate: the whole run's schedule (a warm-up of hundreds of steps, a cosine over the
  // epochs) does not fit a run this short, and the rate changes no operator's time.
  experiment->schedule = ScheduleConfig{};
  ProfileRequest request;
  request.first_step = o.warmup;
  request.steps = o.steps;
  request.record_shapes = !o.no_shapes;
  request.profile_memory = !o.no_memory;
  request.source = "workbench-cli profile";
  request.required = true;
  std::string run_dir;
  SessionOptions options;
  options.quiet = o.quiet;
  options.epochs = 1;
  options.on_end = [&run_dir](const RunSummary& summary, const std::optional<RunError>&) {
    run_dir = summary.run_dir;
  };
  const int status = runSession(
      [&](TrainingRun::EventSink sink) {
        auto run = std::make_unique<TrainingRun>(*experiment, std::move(sink));
        if (launch) run->setProcessLaunch(*launch);
        run->setRunTags({"profile"});
        run->requestProfile(request);
        return run;
      },
      options);
  if (status != kExitOk) return status;
  const std::optional<ProfileReport> report =
      run_dir.empty() ? std::nullopt : recordedProfile(run_dir, request);
  if (!report) {
    printError("The run " + run_dir + " ended without the profile (its log says why).",
               "Run it again with more data or fewer --warmup steps.");
    return kExitFailure;
  }
  std::printf("\n");
  printProfile(*report, *fromWord<ProfileSort>(o.sort), o.rows);
  return kExitOk;
}

}  // namespace

void addProfileCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "profile",
      "profile a few training steps (operators, phases, a Chrome/Perfetto trace)\n"
      "Trains the experiment only as far as the profile needs, in a run folder of its own (tagged "
      "\"profile\"): --warmup steps, then --steps steps recorded with LibTorch's profiler (Kineto where the "
      "build has it; CPU operators, and CUDA kernels when the run trains on CUDA; input shapes and memory). "
      "Prints the operator table as PyTorch's key_averages().table() does, and the step's phases (data, "
      "forward, backward, optimizer, allreduce). The run folder's profile/ holds the trace "
      "(steps-A-B.pt.trace.json: open it in https://ui.perfetto.dev or chrome://tracing), the table and the "
      "report. The learning rate stays constant (the run is too short for the schedule); with several "
      "train.devices, rank 0 is profiled.\n"
      "\n"
      "A run that trains on: `workbench-cli train --profile START:N`, or `workbench-cli control RUN_DIR "
      "--profile N` while it trains.",
      "Examples:\n"
      "  workbench-cli profile --example mlp --steps 10\n"
      "  workbench-cli profile my.json --steps 20 --warmup 10 --sort self_cuda --rows 40\n"
      "\n"
      "Exit status: 0 done, 2 bad input (the run has fewer steps than asked), 1 failure.\n");
  auto o = std::make_shared<ProfileOptions>();
  addExperimentArgs(command, o->experiment);
  command->add_option("--steps", o->steps, "how many optimizer steps to record")
      ->required()
      ->type_name("N")
      ->check(takes("a whole number of steps, 1 or more, e.g. --steps 10", wholeNumberFrom(1)));
  command->add_option("--warmup", o->warmup, "steps trained before the profiled ones (default 5)")
      ->type_name("N")
      ->check(takes("a whole number of steps, 0 or more, e.g. --warmup 5", wholeNumberFrom(0)));
  command->add_option("--sort", o->sort, "the table's order (default self_cpu)")
      ->type_name("ORDER")
      ->check(takes("one of self_cpu, cpu_total, self_cuda, cuda_total, calls, cpu_memory",
                    [](const std::string& text) { return fromWord<ProfileSort>(text).has_value(); }));
  command->add_option("--rows", o->rows, "rows of the table to print; 0: all (default 25)")
      ->type_name("N")
      ->check(takes("a whole number, 0 or more, e.g. --rows 40", wholeNumberFrom(0)));
  command->add_flag("--no-shapes", o->no_shapes, "group operators by name only (no input shapes)");
  command->add_flag("--no-memory", o->no_memory, "leave memory out");
  command->add_flag("-q,--quiet", o->quiet, "no training progress, only the table (and errors)");
  setAction(command, [o] { return profile(*o); });
}

}  // namespace wb::cli
