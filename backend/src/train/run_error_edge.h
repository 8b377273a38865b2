#pragma once
// The error edge of an engine thread (a training run, a compression pipeline): whatever escaped, as the
// RunError the front ends show, with what to do about it. One classification for every job so they cannot
// drift apart; the hints that depend on the job (what to lower, where its log is) are the job's.

#include <exception>
#include <string>

#include "workbench/events.h"

namespace wb {

struct RunErrorHints {
  std::string out_of_memory;  // out of device memory
  std::string out_of_host_memory;
  std::string non_finite;  // the loss became NaN or infinite
  std::string log_kept;    // an internal error: where what happened before is kept (a sentence)
};

RunError classifyRunError(std::exception_ptr error, const RunErrorHints& hints);

}  // namespace wb
