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
#include <stdexcept>
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

// The request file is still there at the deadline: nothing took it.
class NotTaken : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const char* kHelp =
    "usage: workbench-cli control RUN_DIR ACTION [--at-step N] [--timeout SECONDS]\n"
    "\n"
    "Changes a run that is training now (in this or another shell, or in the window), through its folder.\n"
    "Actions (one):\n"
    "  --lr-scale K        multiply the learning-rate schedule by K from the next step on (factors "
    "compound)\n"
    "  --lr LR             a constant learning rate LR from the next step on, replacing the schedule\n"
    "  --stop-after-epoch  end the run when the epoch in progress ends, with a checkpoint (resume continues "
    "it)\n"
    "  --stop              stop after the step in flight, with a checkpoint (like Ctrl-C)\n"
    "  --checkpoint        write a checkpoint after the step in flight\n"
    "Options:\n"
    "  --at-step N         learning-rate changes: from step N on instead of the next step\n"
    "  --timeout SECONDS   how long to wait for the run to take the request (default 10)\n"
    "\n"
    "Changes are events in the run's metrics.jsonl and train.log, marked on the window's charts, and kept "
    "in\n"
    "its checkpoints. The process that trains also takes signals: SIGUSR1 = checkpoint now, SIGUSR2 = stop\n"
    "after this epoch (kill -USR2 PID).\n"
    "\n"
    "Examples:\n"
    "  workbench-cli control runs/20261202-141500-cnn-fashion-mnist --lr-scale 0.5\n"
    "  workbench-cli control RUN_DIR --lr-scale 0.1 --at-step 5000\n"
    "  workbench-cli control RUN_DIR --stop-after-epoch\n";

bool parseNumber(const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && end && *end == '\0';
}

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

}  // namespace

int controlCommand(const std::vector<std::string>& args) {
  std::string run_dir;
  std::optional<ControlRequest> request;
  int64_t at_step = -1;
  double timeout_s = 10;
  auto setAction = [&](ControlRequest::Kind kind, double value) {
    if (request) return false;
    request = ControlRequest{kind, value};
    return true;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool takes_value = a == "--lr-scale" || a == "--lr" || a == "--at-step" || a == "--timeout";
    double number = 0;
    if (takes_value && (i + 1 >= args.size() || !parseNumber(args[i + 1], number))) {
      std::cerr << "error: " << a << " needs a number, e.g. " << a << (a == "--at-step" ? " 1200" : " 0.5")
                << "\n";
      return kExitBadInput;
    }
    bool ok = true;
    if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return kExitOk;
    } else if (a == "--lr-scale") {
      ok = setAction(ControlRequest::Kind::LrScale, number);
      ++i;
    } else if (a == "--lr") {
      ok = setAction(ControlRequest::Kind::LrConstant, number);
      ++i;
    } else if (a == "--at-step") {
      if (number < 0 || number != static_cast<double>(static_cast<int64_t>(number))) {
        std::cerr << "error: --at-step needs a step number (0 or more); got " << args[i + 1] << "\n";
        return kExitBadInput;
      }
      at_step = static_cast<int64_t>(number);
      ++i;
    } else if (a == "--timeout") {
      timeout_s = number;
      ++i;
    } else if (a == "--stop-after-epoch") {
      ok = setAction(ControlRequest::Kind::StopAfterEpoch, 0);
    } else if (a == "--stop") {
      ok = setAction(ControlRequest::Kind::Stop, 0);
    } else if (a == "--checkpoint") {
      ok = setAction(ControlRequest::Kind::Checkpoint, 0);
    } else if (!a.empty() && a[0] != '-' && run_dir.empty()) {
      run_dir = a;
    } else {
      std::cerr << "error: unknown argument '" << a << "' for control\n\n" << kHelp;
      return kExitBadInput;
    }
    if (!ok) {
      std::cerr << "error: control takes one action at a time (" << a << " after another)\n";
      return kExitBadInput;
    }
  }
  if (run_dir.empty() || !request) {
    std::cerr << "error: control needs a run folder and an action\n\n" << kHelp;
    return kExitBadInput;
  }
  const bool lr_change =
      request->kind == ControlRequest::Kind::LrScale || request->kind == ControlRequest::Kind::LrConstant;
  if (at_step >= 0 && !lr_change) {
    std::cerr << "error: --at-step goes with --lr-scale or --lr\n";
    return kExitBadInput;
  }
  request->at_step = at_step;
  if (lr_change) {
    const std::string problem = checkLrChange(LrChange{
        request->kind == ControlRequest::Kind::LrScale ? LrChange::Kind::Scale : LrChange::Kind::Constant,
        request->value, /*from_step=*/-1, /*source=*/{}});
    if (!problem.empty()) {
      printError("Cannot change the learning rate: " + problem + ".",
                 "Give a positive number, e.g. --lr-scale 0.5.");
      return kExitBadInput;
    }
  }

  try {
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
    if ((record && record->status != "running") || (!record && fs::exists(folder / "summary.json"))) {
      throw UserError(
          "Run " + run_dir + " is not training now" + (record ? " (" + record->status + ")" : "") + ".",
          "Control works on a live run; `workbench-cli resume " + run_dir +
              "` continues an interrupted one.");
    }
    const std::string metrics = (folder / "metrics.jsonl").string();
    std::error_code ec;
    const auto size = fs::file_size(metrics, ec);
    const std::streamoff metrics_size = ec ? 0 : static_cast<std::streamoff>(size);
    const std::string path = sendControlRequest(run_dir, *request);
    const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
    while (fs::exists(path) && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (fs::exists(path)) {
      fs::remove(path, ec);  // not left to surprise a later session
      throw NotTaken("The run did not take the request within " +
                     std::to_string(static_cast<int>(timeout_s)) + " s.");
    }
    if (fs::exists(path + ".rejected")) {
      std::ifstream in(path + ".rejected");
      std::string reason;
      std::getline(in, reason);
      in.close();
      fs::remove(path + ".rejected", ec);
      throw UserError("The run rejected the request: " + reason, "See workbench-cli control --help.");
    }
    if (!lr_change && request->kind != ControlRequest::Kind::StopAfterEpoch) {
      std::printf("%s: %s requested; the run takes it after the step in flight (its log says when).\n",
                  run_dir.c_str(), request->kind == ControlRequest::Kind::Stop ? "stop" : "checkpoint");
      return kExitOk;
    }
    // The run confirms with its event at the next step boundary (at once when paused).
    while (Clock::now() < deadline) {
      if (const auto applied = controlEventAfter(metrics, metrics_size)) {
        std::printf("%s: %s\n", run_dir.c_str(), applied->message.c_str());
        return kExitOk;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::printf("%s: the run took the request; it applies it at its next step (still loading data?).\n",
                run_dir.c_str());
    return kExitOk;
  } catch (const UserError& e) {
    printError(e.what(), e.hint());
    return kExitBadInput;
  } catch (const NotTaken& e) {
    printError(e.what(),
               "Is it still training? `workbench-cli runs` shows its status; a run loading its data "
               "takes requests once training starts.");
    return kExitFailure;
  } catch (const std::exception& e) {
    printError(e.what(), "");
    return kExitFailure;
  }
}

}  // namespace wb::cli
