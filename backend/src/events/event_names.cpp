#include "workbench/events.h"

namespace wb {

const char* toString(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warning:
      return "warning";
    case LogLevel::Error:
      return "error";
  }
  return "info";
}

const char* toString(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::BadInput:
      return "bad_input";
    case ErrorKind::ExperimentChanged:
      return "experiment_changed";
    case ErrorKind::OutOfMemory:
      return "out_of_memory";
    case ErrorKind::NonFinite:
      return "non_finite";
    case ErrorKind::Device:
      return "device";
    case ErrorKind::Internal:
      return "internal";
  }
  return "internal";
}

const char* toString(ControlKind kind) {
  switch (kind) {
    case ControlKind::LrScale:
      return "lr_scale";
    case ControlKind::LrConstant:
      return "lr_constant";
    case ControlKind::StopAfterEpoch:
      return "stop_after_epoch";
  }
  return "lr_scale";
}

}  // namespace wb
