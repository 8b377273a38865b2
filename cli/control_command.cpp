// workbench-cli control: changes a live run from another shell, through its run folder. The request is a file
// in RUN_DIR/control/ that the training process takes within about half a second; the run's own event in
// metrics.jsonl ("step 1200: learning rate ×0.5 (now 0.0005)") is the confirmation printed here.

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>
#include <variant>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/errors.h"
#include "workbench/event_json.h"
#include "workbench/run_control.h"
#include "workbench/run_index.h"

namespace wb::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// The run's latest "control" event after `offset` bytes of metrics.jsonl, once it is there.
std::optional<ControlApplied> controlEventAfter(const std::string& metrics, std::streamoff offset) {
  std::ifstream in(metrics);
  in.seekg(offset);
  std::string line;
  std::optional<ControlApplied> found;
  while (std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    if (const auto event = eventFromJson(j)) {
      if (const auto* c = std::get_if<ControlApplied>(&*event)) found = *c;
    }
  }
  return found;
}

struct ControlOptions {
  std::string run_dir;
  std::vector<std::pair<ControlRequest::Kind, double>> actions;  // in the order given
  int64_t at_step = -1;
  double timeout_s = 10;
};

// The one action, checked as a request the run can take.
ControlRequest checkedRequest(const ControlOptions& o) {
  if (o.actions.size() != 1) {
    throw UserError(
        o.actions.empty() ? "control needs an action" : "control takes one action at a time",
        "Give one of --lr-scale K, --lr LR, --stop-after-epoch, --stop, --checkpoint, --profile N "
        "(`workbench-cli control --help`).");
  }
  ControlRequest request{o.actions.front().first, o.actions.front().second};
  const bool lr_change =
      request.kind == ControlRequest::Kind::LrScale || request.kind == ControlRequest::Kind::LrConstant;
  const bool profile = request.kind == ControlRequest::Kind::Profile;
  if (o.at_step >= 0 && !lr_change && !profile) {
    throw UserError("--at-step goes with --lr-scale, --lr or --profile", "");
  }
  request.at_step = o.at_step;
  if (profile) request.steps = static_cast<int64_t>(request.value);
  if (lr_change) {
    const std::string problem = checkLrChange(LrChange{
        request.kind == ControlRequest::Kind::LrScale ? LrChange::Kind::Scale : LrChange::Kind::Constant,
        request.value, /*from_step=*/-1, /*source=*/{}});
    if (!problem.empty()) {
      throw UserError("Cannot change the learning rate: " + problem + ".",
                      "Give a positive number, e.g. --lr-scale 0.5.");
    }
  }
  return request;
}

// The run's folder, when it is a run training now.
fs::path liveRunFolder(const std::string& run_dir) {
  if (!fs::is_regular_file(fs::path(run_dir) / "experiment.json")) {
    throw UserError(run_dir + " is not a run folder: it has no experiment.json.",
                    "Give the folder of a run that is training (workbench-cli runs lists them).");
  }
  // The run index knows whether the run is training (and marks one whose process died as interrupted).
  fs::path folder = fs::absolute(run_dir).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();  // "runs/x/" names runs/x
  std::optional<RunRecord> record;
  try {
    record = findRun(folder.parent_path().string(), folder.string());
  } catch (const UserError&) {
    // An unreadable index: the folder's summary below still tells a finished run.
  }
  if ((record && record->status != RunIndexStatus::Running) ||
      (!record && fs::exists(folder / "summary.json"))) {
    throw UserError(
        "Run " + run_dir + " is not training now" + (record ? " (" + wordString(record->status) + ")" : "") +
            ".",
        "Control works on a live run; `workbench-cli resume " + run_dir + "` continues an interrupted one.");
  }
  return folder;
}

int control(const ControlOptions& o) {
  const ControlRequest request = checkedRequest(o);
  const bool lr_change =
      request.kind == ControlRequest::Kind::LrScale || request.kind == ControlRequest::Kind::LrConstant;
  const fs::path folder = liveRunFolder(o.run_dir);
  const std::string metrics = (folder / "metrics.jsonl").string();
  std::error_code ec;
  const auto size = fs::file_size(metrics, ec);
  const std::streamoff metrics_size = ec ? 0 : static_cast<std::streamoff>(size);
  const std::string path = sendControlRequest(o.run_dir, request);
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  while (fs::exists(path) && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (fs::exists(path)) {
    fs::remove(path, ec);  // not left to surprise a later session
    printError(
        "The run did not take the request within " + std::to_string(static_cast<int>(o.timeout_s)) + " s.",
        "Is it still training? `workbench-cli runs` shows its status; a run loading its data "
        "takes requests once training starts.");
    return kExitFailure;
  }
  if (fs::exists(path + ".rejected")) {
    std::ifstream in(path + ".rejected");
    std::string reason;
    std::getline(in, reason);
    in.close();
    fs::remove(path + ".rejected", ec);
    throw UserError("The run rejected the request: " + reason, "See workbench-cli control --help.");
  }
  if (request.kind == ControlRequest::Kind::Profile) {
    std::printf("%s: a profile of %lld steps requested; the run writes it to %s (its log says when).\n",
                o.run_dir.c_str(), static_cast<long long>(request.steps),
                (folder / "profile").string().c_str());
    return kExitOk;
  }
  if (!lr_change && request.kind != ControlRequest::Kind::StopAfterEpoch) {
    std::printf("%s: %s requested; the run takes it after the step in flight (its log says when).\n",
                o.run_dir.c_str(), request.kind == ControlRequest::Kind::Stop ? "stop" : "checkpoint");
    return kExitOk;
  }
  // The run confirms with its event at the next step boundary (at once when paused).
  while (Clock::now() < deadline) {
    if (const auto applied = controlEventAfter(metrics, metrics_size)) {
      std::printf("%s: %s\n", o.run_dir.c_str(), applied->message.c_str());
      return kExitOk;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::printf("%s: the run took the request; it applies it at its next step (still loading data?).\n",
              o.run_dir.c_str());
  return kExitOk;
}

void addActions(CLI::App* command, ControlOptions& o) {
  using Kind = ControlRequest::Kind;
  const auto number = [&o, command](const std::string& name, Kind kind, const std::string& type,
                                    const std::string& help) {
    command
        ->add_option_function<std::string>(
            name,
            [&o, kind](const std::string& text) {
              double value = 0;
              parseNumber(text, value);
              o.actions.emplace_back(kind, value);
            },
            help)
        ->type_name(type)
        ->check(takes("a number, e.g. " + name + " 0.5", numberWhere([](double) { return true; })))
        // One action at a time: the same one twice is refused too, not merged (the program's default keeps
        // the last value).
        ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  };
  number("--lr-scale", Kind::LrScale, "K",
         "multiply the learning-rate schedule by K from the next step on (factors compound)");
  number("--lr", Kind::LrConstant, "LR",
         "a constant learning rate LR from the next step on, replacing the schedule");
  const auto flag = [&o, command](const std::string& name, Kind kind, const std::string& help) {
    command
        ->add_flag_callback(
            name, [&o, kind] { o.actions.emplace_back(kind, 0); }, help)
        ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
  };
  flag("--stop-after-epoch", Kind::StopAfterEpoch,
       "end the run when the epoch in progress ends, with a checkpoint (resume continues it)");
  flag("--stop", Kind::Stop, "stop after the step in flight, with a checkpoint (like Ctrl-C)");
  flag("--checkpoint", Kind::Checkpoint, "write a checkpoint after the step in flight");
  command
      ->add_option_function<int64_t>(
          "--profile", [&o](const int64_t& steps) { o.actions.emplace_back(Kind::Profile, steps); },
          "record N steps with LibTorch's profiler from the next step (or --at-step) into the run folder's "
          "profile/")
      ->type_name("N")
      ->check(takes("a whole number of steps, 1 or more, e.g. --profile 20", wholeNumberFrom(1)))
      ->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

}  // namespace

void addControlCommand(CLI::App& program) {
  CLI::App* command = addCommand(
      program, "control",
      "change a live run: learning rate, stop, checkpoint\n"
      "Changes a run that is training now (in this or another shell, or in the window), through its folder: "
      "one "
      "action, --lr-scale, --lr, --stop-after-epoch, --stop or --checkpoint. Changes are events in the run's "
      "metrics.jsonl and train.log, marked on the window's charts, and kept in its checkpoints. The process "
      "that "
      "trains also takes signals: SIGUSR1 = checkpoint now, SIGUSR2 = stop after this epoch (kill -USR2 "
      "PID).",
      "Examples:\n"
      "  workbench-cli control runs/20261202-141500-cnn-fashion-mnist --lr-scale 0.5\n"
      "  workbench-cli control RUN_DIR --lr-scale 0.1 --at-step 5000\n"
      "  workbench-cli control RUN_DIR --stop-after-epoch\n"
      "  workbench-cli control RUN_DIR --profile 20\n");
  auto o = std::make_shared<ControlOptions>();
  command->add_option("RUN_DIR", o->run_dir, "the folder of the run training now")->required();
  addActions(command, *o);
  command
      ->add_option("--at-step", o->at_step,
                   "learning-rate changes and --profile: from step N on instead of the next step")
      ->type_name("N")
      ->check(takes("a step number (0 or more), e.g. --at-step 1200", wholeNumberFrom(0)));
  command
      ->add_option("--timeout", o->timeout_s, "how long to wait for the run to take the request (default 10)")
      ->type_name("SECONDS")
      ->check(takes("a number, e.g. --timeout 30", numberWhere([](double) { return true; })));
  setAction(command, [o] { return control(*o); });
}

}  // namespace wb::cli
