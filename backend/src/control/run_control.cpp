#include "workbench/run_control.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/atomic_file.h"
#include "workbench/errors.h"
#include "workbench/profile_report.h"

namespace wb {
namespace {

constexpr ControlRequest::Kind kRequestKinds[] = {
    ControlRequest::Kind::LrScale, ControlRequest::Kind::LrConstant, ControlRequest::Kind::StopAfterEpoch,
    ControlRequest::Kind::Stop,    ControlRequest::Kind::Checkpoint, ControlRequest::Kind::Profile};

bool isLrChange(ControlRequest::Kind kind) {
  return kind == ControlRequest::Kind::LrScale || kind == ControlRequest::Kind::LrConstant;
}

// "steps" (required) and "at_step" (optional) of a profile request, checked as TrainingRun checks them.
bool readProfileFields(const nlohmann::json& j, ControlRequest& r, std::string& problem) {
  if (!j.contains("steps") || !j["steps"].is_number_integer()) {
    problem = "request \"profile\" needs a whole number \"steps\" (how many steps to record)";
    return false;
  }
  r.steps = j["steps"].get<int64_t>();
  if (j.contains("at_step")) {
    if (!j["at_step"].is_number_integer() || j["at_step"].get<int64_t>() < 0) {
      problem = "\"at_step\" must be a step number (0 or more)";
      return false;
    }
    r.at_step = j["at_step"].get<int64_t>();
  }
  ProfileRequest request;
  request.steps = r.steps;
  request.first_step = r.at_step;
  problem = checkProfileRequest(request);
  return problem.empty();
}

}  // namespace

std::string checkLrChange(const LrChange& change) {
  if (std::isfinite(change.value) && change.value > 0) return {};
  std::ostringstream out;
  out << (change.kind == LrChange::Kind::Scale ? "the learning-rate factor" : "the learning rate")
      << " must be a "
      << "number greater than 0; got " << change.value;
  return out.str();
}

const char* toString(ControlRequest::Kind kind) {
  switch (kind) {
    case ControlRequest::Kind::LrScale:
      return "lr_scale";
    case ControlRequest::Kind::LrConstant:
      return "lr";
    case ControlRequest::Kind::StopAfterEpoch:
      return "stop_after_epoch";
    case ControlRequest::Kind::Stop:
      return "stop";
    case ControlRequest::Kind::Checkpoint:
      return "checkpoint";
    case ControlRequest::Kind::Profile:
      return "profile";
  }
  return "checkpoint";
}

nlohmann::json controlRequestToJson(const ControlRequest& request) {
  nlohmann::json j = {{"request", toString(request.kind)}, {"source", request.source}};
  if (isLrChange(request.kind)) {
    j["value"] = request.value;
    if (request.at_step >= 0) j["at_step"] = request.at_step;
  }
  if (request.kind == ControlRequest::Kind::Profile) {
    j["steps"] = request.steps;
    if (request.at_step >= 0) j["at_step"] = request.at_step;
  }
  return j;
}

std::optional<ControlRequest> controlRequestFromJson(const nlohmann::json& j, std::string& problem) {
  if (!j.is_object() || !j.contains("request") || !j["request"].is_string()) {
    problem =
        "not a control request: it needs \"request\": one of lr_scale, lr, stop_after_epoch, stop, "
        "checkpoint, profile";
    return std::nullopt;
  }
  const std::string name = j["request"].get<std::string>();
  ControlRequest r;
  bool known = false;
  for (ControlRequest::Kind kind : kRequestKinds) {
    if (name == toString(kind)) {
      r.kind = kind;
      known = true;
    }
  }
  if (!known) {
    problem = "unknown request \"" + name +
              "\": expected one of lr_scale, lr, stop_after_epoch, stop, checkpoint, profile";
    return std::nullopt;
  }
  if (j.contains("source") && j["source"].is_string()) r.source = j["source"].get<std::string>();
  if (isLrChange(r.kind)) {
    if (!j.contains("value") || !j["value"].is_number()) {
      problem = "request \"" + name + "\" needs a number \"value\"";
      return std::nullopt;
    }
    r.value = j["value"].get<double>();
    const std::string bad = checkLrChange(LrChange{
        r.kind == ControlRequest::Kind::LrScale ? LrChange::Kind::Scale : LrChange::Kind::Constant, r.value,
        /*from_step=*/-1, /*source=*/{}});
    if (!bad.empty()) {
      problem = bad;
      return std::nullopt;
    }
    if (j.contains("at_step")) {
      if (!j["at_step"].is_number_integer() || j["at_step"].get<int64_t>() < 0) {
        problem = "\"at_step\" must be a step number (0 or more)";
        return std::nullopt;
      }
      r.at_step = j["at_step"].get<int64_t>();
    }
  }
  if (r.kind == ControlRequest::Kind::Profile && !readProfileFields(j, r, problem)) return std::nullopt;
  return r;
}

std::string controlFolder(const std::string& run_dir) {
  return run_dir + "/control";
}

std::string sendControlRequest(const std::string& run_dir, const ControlRequest& request) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(controlFolder(run_dir), ec);
  if (ec) {
    throw UserError("Cannot create " + controlFolder(run_dir) + ": " + ec.message(),
                    "Check that the run folder is writable by this user.");
  }
  // Named by the time (nanoseconds, zero-padded) so that the run takes requests in the order they were sent.
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  std::string stamp = std::to_string(ns);
  stamp.insert(0, stamp.size() < 20 ? 20 - stamp.size() : 0, '0');
  const std::string path =
      controlFolder(run_dir) + "/request-" + stamp + "-" + std::to_string(::getpid()) + ".json";
  writeFileAtomically(path, controlRequestToJson(request).dump() + "\n");
  return path;
}

}  // namespace wb
