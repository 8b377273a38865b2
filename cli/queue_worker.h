#pragma once
// The queue's worker (`workbench-cli queue run`, `sweep start --run`).

#include <string>

namespace wb::cli {

// Trains the queued entries of `runs_dir` one after another, each in a child process, until none is queued
// (until_empty) or until SIGINT/SIGTERM (otherwise it waits for more, polling every second). Prints each
// entry's start and end and, at the end, what was done. Returns 0, or 128 + the signal that stopped it.
int runQueueWorker(const std::string& runs_dir, bool until_empty);

}  // namespace wb::cli
