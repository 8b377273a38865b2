#pragma once
// The part find-lr and find-batch share: a finder runs in the command's own thread, Ctrl+C is its cancel
// button (it ends early with what it measured), and its failures become the CLI's messages and exit statuses.

#include <functional>
#include <string>

#include "workbench/finders.h"

namespace wb::cli {

// Calls `run` with callbacks that log to stderr and report Ctrl+C as cancelled; SIGINT's previous handler is
// restored before returning. Returns kExitOk, kExitBadInput for a UserError (bad experiment or options) or
// kExitFailure for anything else; `subject` ("The range test") names the finder in that message.
int runFinder(const std::string& subject, const std::function<void(const FinderCallbacks&)>& run);

}  // namespace wb::cli
