// The queue's worker: claims the queued entries of a runs folder one after another and trains each in a child
// process (`workbench-cli queue exec ID`, in the folder the entry was queued from), so that a crash, an
// out-of-memory kill or a run's process-wide settings (seed, threads) end with that entry, not the worker.
#include "queue_worker.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <thread>

#include "cli_commands.h"
#include "workbench/run_queue.h"

namespace wb::cli {
namespace {

namespace fs = std::filesystem;

std::atomic<int> g_worker_signal{0};
void onWorkerSignal(int signal) { g_worker_signal.store(signal); }

// Runs `workbench-cli queue exec ID` in the entry's folder and waits for it. Returns its wait status.
int runChild(const std::string& runs_dir, const QueueEntry& entry) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string id = std::to_string(entry.id);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    if (!entry.cwd.empty() && ::chdir(entry.cwd.c_str()) != 0) {
      std::fprintf(stderr, "error: cannot enter %s, where entry %s was queued: %s\n", entry.cwd.c_str(), id.c_str(),
                   std::strerror(errno));
      ::_exit(kExitBadInput);
    }
    ::execl(self.c_str(), self.c_str(), "queue", "exec", id.c_str(), "--runs-dir", runs_dir.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  bool forwarded = false;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
    // A SIGTERM for the worker alone (not the terminal's Ctrl-C, which reaches the child too) is passed on, so
    // that the entry checkpoints and is queued again.
    if (g_worker_signal.load() == SIGTERM && !forwarded) {
      ::kill(pid, SIGTERM);
      forwarded = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace

int runQueueWorker(const std::string& runs_dir, bool until_empty) {
  std::signal(SIGINT, onWorkerSignal);
  std::signal(SIGTERM, onWorkerSignal);
  int done = 0, failed = 0;
  bool waiting_said = false;
  while (g_worker_signal.load() == 0) {
    const std::optional<QueueEntry> entry = claimFromQueue(runs_dir, ::getpid());
    if (!entry) {
      if (until_empty) break;
      if (!waiting_said) std::cout << "Waiting for queued entries in " << runs_dir << " (Ctrl-C ends)...\n" << std::flush;
      waiting_said = true;
      std::this_thread::sleep_for(std::chrono::seconds(1));
      continue;
    }
    waiting_said = false;
    std::cout << "== queue entry " << entry->id << " (" << entry->label << ")"
              << (entry->run_folder.empty() ? "" : ": resuming " + entry->run_folder) << "\n"
              << std::flush;
    if (!entry->cwd.empty() && !fs::is_directory(entry->cwd)) {
      endQueueEntry(runs_dir, entry->id, "failed", "",
                    "the folder it was queued from, " + entry->cwd +
                        ", is gone (relative paths in its experiment resolve there): queue it again from another");
      std::cout << "== queue entry " << entry->id << " (" << entry->label << "): failed — " << entry->cwd
                << " is gone\n" << std::flush;
      ++failed;
      continue;
    }
    const int status = runChild(runs_dir, *entry);
    std::optional<QueueEntry> after = findQueueEntry(runs_dir, entry->id);
    if (after && after->state == "running") {
      // The child is gone without saying how the entry ended: killed (out of memory?), or it could not start.
      const std::string why = WIFSIGNALED(status)
                                  ? "its process ended by signal " + std::to_string(WTERMSIG(status)) +
                                        (WTERMSIG(status) == SIGKILL ? " (killed: out of memory?)" : "")
                                  : "its process exited with status " + std::to_string(WEXITSTATUS(status)) +
                                        " without saying how the run ended";
      endQueueEntry(runs_dir, entry->id, "failed", runFolderOfProcess(runs_dir, after->owner_pid), why);
      after = findQueueEntry(runs_dir, entry->id);
    }
    const std::string state = after ? after->state : "removed";
    if (state == "done") ++done;
    if (state == "failed") ++failed;
    std::cout << "== queue entry " << entry->id << " (" << entry->label << "): " << state
              << (after && !after->message.empty() ? " — " + after->message : "") << "\n"
              << std::flush;
  }
  std::cout << (g_worker_signal.load() != 0 ? "Queue worker stopped" : "Queue finished") << ": " << done << " done, "
            << failed << " failed";
  int waiting = 0;
  for (const QueueEntry& e : listQueue(runs_dir)) waiting += e.state == "queued" || e.state == "held" ? 1 : 0;
  std::cout << ", " << waiting << " waiting.\n";
  return g_worker_signal.load() != 0 ? 128 + g_worker_signal.load() : kExitOk;
}

}  // namespace wb::cli
