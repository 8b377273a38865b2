#pragma once
// Controlling a live run: a learning-rate change (a factor on the schedule, or a constant that replaces it)
// and the requests a front end sends it. From the process that trains, through TrainingRun; from any other
// shell, through request files in the run folder's control/ directory, which the training process polls
// (workbench-cli control writes them). Plain C++: the window and the CLI include this without Torch.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace wb {

// Applied at a step boundary that every rank agrees on, and saved in checkpoints (exact resume).
struct LrChange {
  enum class Kind {
    Scale,     // multiplies the schedule (and any constant set before) from then on; several compound
    Constant,  // replaces the schedule from then on with this learning rate
  };
  Kind kind = Kind::Scale;
  double value = 1;  // the factor or the learning rate; finite and > 0
  // The first step trained with it comes after this many steps; -1: the next step. A step already past
  // means the next step (the past is not rewritten).
  int64_t from_step = -1;
  std::string source;  // who asked, for the log: "the window", "workbench-cli control"
};

// Empty when the change can be applied; otherwise what is wrong with it, naming the value.
std::string checkLrChange(const LrChange& change);

// What a request file in RUN_DIR/control/ asks of the run that trains in that folder.
struct ControlRequest {
  enum class Kind { LrScale, LrConstant, StopAfterEpoch, Stop, Checkpoint, Profile };
  Kind kind = Kind::Checkpoint;
  double value = 0;      // LrScale: the factor; LrConstant: the learning rate
  int64_t at_step = -1;  // LR changes: LrChange::from_step; Profile: ProfileRequest::first_step
  int64_t steps = 0;     // Profile: how many steps to record (workbench/profile_report.h), 1 or more
  std::string source = "workbench-cli control";
};

// "lr_scale", "lr", "stop_after_epoch", "stop", "checkpoint", "profile"
const char* toString(ControlRequest::Kind kind);
nlohmann::json controlRequestToJson(const ControlRequest& request);
// nullopt and `problem` set when the object is not a valid request.
std::optional<ControlRequest> controlRequestFromJson(const nlohmann::json& j, std::string& problem);

// The folder, inside a run folder, that the training process polls for request files.
std::string controlFolder(const std::string& run_dir);

// Writes the request atomically (a temporary file renamed) as RUN_DIR/control/request-<time>-<pid>.json and
// returns its path. The training process picks it up within about half a second and deletes it; a request it
// cannot use is deleted too, with the reason in <path>.rejected. Throws wb::UserError when the folder cannot
// be written.
std::string sendControlRequest(const std::string& run_dir, const ControlRequest& request);

}  // namespace wb
