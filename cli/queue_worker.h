#pragma once
// The queue's worker (`workbench-cli queue run`, `sweep start --run`).

#include <string>
#include <vector>

namespace wb::cli {

// Set in an entry's process when it trains in a GPU slot ("cuda:1"): the only GPU it sees (as cuda:0).
inline constexpr const char* kQueueSlotVariable = "WORKBENCH_QUEUE_SLOT";

// Where one entry trains at a time: a CUDA device (its child sees only that GPU, as cuda:0) or a share of the
// CPU cores (its child is pinned to them, and its threads follow).
struct QueueSlot {
  std::string device;      // "cuda:1", or "cpu"
  std::vector<int> cores;  // a CPU share's cores; empty: every core
  std::string describe() const;
};

// The slots of `--devices cuda:0,cuda:1` or `--devices cpu,cpu` (the cores split evenly between the cpu
// slots). Empty text: one slot, nothing restricted. Returns false (the error printed) for an item it does not
// know or more CPU shares than cores.
bool parseQueueSlots(const std::string& text, std::vector<QueueSlot>& slots);

// Trains the queued entries of `runs_dir`, each in a child process, one per slot at a time, until none is
// queued or running (until_empty) or until SIGINT/SIGTERM (otherwise it waits for more, polling every
// second). Prints each entry's start and end and, at the end, what was done. Returns 0, or 128 + the signal.
int runQueueWorker(const std::string& runs_dir, bool until_empty, const std::vector<QueueSlot>& slots = {});

}  // namespace wb::cli
