// The queue's worker: claims the queued entries of a runs folder and trains each in a child process
// (`workbench-cli queue exec ID`, in the folder the entry was queued from), one per slot at a time, so that a
// crash, an out-of-memory kill or a run's process-wide settings (seed, threads) end with that entry, not the
// worker or the other slots.
#include "queue_worker.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/run_queue.h"

namespace wb::cli {
namespace {

namespace fs = std::filesystem;

std::atomic<int> g_worker_signal{0};
void onWorkerSignal(int signal) {
  g_worker_signal.store(signal);
}

std::vector<int> allowedCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cores;
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cores.push_back(c);
    }
  }
  return cores;
}

// Starts `workbench-cli queue exec ID` in the entry's folder, in `slot`. Returns its pid.
pid_t startChild(const std::string& runs_dir, const QueueEntry& entry, const QueueSlot& slot) {
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string id = std::to_string(entry.id);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid != 0) return pid;
  if (!entry.cwd.empty() && ::chdir(entry.cwd.c_str()) != 0) {
    std::fprintf(stderr, "error: cannot enter %s, where entry %s was queued: %s\n", entry.cwd.c_str(),
                 id.c_str(), std::strerror(errno));
    ::_exit(kExitBadInput);
  }
  if (slot.device.rfind("cuda:", 0) == 0) {
    // The child sees this GPU alone, as cuda:0; `queue exec` moves an experiment written for one GPU onto it.
    ::setenv("CUDA_VISIBLE_DEVICES", slot.device.substr(5).c_str(), 1);
    ::setenv(kQueueSlotVariable, slot.device.c_str(), 1);
  }
  if (!slot.cores.empty()) {
    // Pinned to its share; the engine sizes its threads by the cores it may use (coresAvailable).
    cpu_set_t set;
    CPU_ZERO(&set);
    for (const int c : slot.cores) CPU_SET(c, &set);
    ::sched_setaffinity(0, sizeof(set), &set);
    ::setenv("OMP_NUM_THREADS", std::to_string(slot.cores.size()).c_str(), 1);
  }
  ::execl(self.c_str(), self.c_str(), "queue", "exec", id.c_str(), "--runs-dir", runs_dir.c_str(),
          static_cast<char*>(nullptr));
  ::_exit(127);
}

struct Busy {
  QueueEntry entry;
  pid_t pid = 0;
};

}  // namespace

std::string QueueSlot::describe() const {
  if (cores.empty()) return device.empty() ? "" : device;
  std::ostringstream text;
  text << "cpu cores " << cores.front();
  if (cores.size() > 1) text << "-" << cores.back();
  return text.str();
}

bool parseQueueSlots(const std::string& text, std::vector<QueueSlot>& slots) {
  slots.clear();
  if (text.empty()) return true;
  std::stringstream items(text);
  std::string item;
  int cpu_slots = 0;
  while (std::getline(items, item, ',')) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    const bool cuda = item.rfind("cuda:", 0) == 0 && item.size() > 5 &&
                      item.find_first_not_of("0123456789", 5) == std::string::npos;
    if (item != "cpu" && !cuda) {
      printError(
          "--devices: '" + item + "' is not a device",
          "List one slot per device: cuda:0,cuda:1 (a GPU each) or cpu,cpu (the CPU cores shared out).");
      return false;
    }
    cpu_slots += item == "cpu" ? 1 : 0;
    slots.push_back(QueueSlot{item, {}});
  }
  if (cpu_slots > 1) {
    const std::vector<int> cores = allowedCores();
    if (static_cast<int>(cores.size()) < cpu_slots) {
      printError("--devices: " + std::to_string(cpu_slots) + " CPU slots but only " +
                     std::to_string(cores.size()) + " cores to share out",
                 "Give at most one cpu slot per core.");
      return false;
    }
    // Contiguous shares, the remainder to the first ones.
    int next = 0, k = 0;
    for (QueueSlot& slot : slots) {
      if (slot.device != "cpu") continue;
      const int share = static_cast<int>(cores.size()) / cpu_slots +
                        (k < static_cast<int>(cores.size()) % cpu_slots ? 1 : 0);
      slot.cores.assign(cores.begin() + next, cores.begin() + next + share);
      next += share, ++k;
    }
  }
  return true;
}

namespace {

// One worker's slots and what each trains now.
class Worker {
 public:
  Worker(std::string runs_dir, const std::vector<QueueSlot>& slots)
      : m_runs_dir(std::move(runs_dir)),
        m_slots(slots.empty() ? std::vector<QueueSlot>{QueueSlot{}} : slots),
        m_busy(m_slots.size()) {}

  // Children that ended: how their entries ended. Returns whether any slot is still busy.
  bool reapEnded();
  // A SIGTERM for the worker alone (not the terminal's Ctrl-C, which reaches the children too) is passed on,
  // so that each entry checkpoints and is queued again.
  void forwardSigterm();
  // Free slots take the next queued entries. Returns false when nothing is queued and no slot is busy.
  bool claimFree(bool any_busy);
  // Polls the children every 20 ms (a slot that frees up takes the next entry at once) for up to a second.
  void waitABit() const;
  void printTotals() const;
  void sayWaiting() {
    if (!m_waiting_said)
      std::cout << "Waiting for queued entries in " << m_runs_dir << " (Ctrl-C ends)...\n" << std::flush;
    m_waiting_said = true;
  }

 private:
  std::string name(size_t s, const QueueEntry& e) const {
    const std::string where = m_slots[s].describe();
    return "queue entry " + std::to_string(e.id) + " (" + e.label + (where.empty() ? "" : ", " + where) + ")";
  }
  void recordEnd(size_t s, const siginfo_t& info);

  std::string m_runs_dir;
  std::vector<QueueSlot> m_slots;
  std::vector<std::optional<Busy>> m_busy;
  int m_done = 0, m_failed = 0;
  bool m_waiting_said = false, m_forwarded = false;
};

bool Worker::reapEnded() {
  // Each child is looked at before it is reaped (WNOWAIT): until then its pid still stands for a live owner,
  // so nobody (a window listing the queue, another worker) puts its entry back as orphaned before it is
  // marked failed here.
  bool any_busy = false;
  for (size_t s = 0; s < m_slots.size(); ++s) {
    if (!m_busy[s]) continue;
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(m_busy[s]->pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
      if (errno == EINTR) {
        any_busy = true;
        continue;
      }
      info.si_pid = m_busy[s]->pid, info.si_code = 0;  // lost (ECHILD): ended, how unknown
    } else if (info.si_pid == 0) {
      any_busy = true;  // still running
      continue;
    }
    recordEnd(s, info);
  }
  return any_busy;
}

void Worker::recordEnd(size_t s, const siginfo_t& info) {
  const QueueEntry entry = m_busy[s]->entry;
  std::optional<QueueEntry> after = findQueueEntry(m_runs_dir, entry.id);
  if (after && after->state == QueueState::Running) {
    // The child is gone without saying how the entry ended: killed (out of memory?), or it could not start.
    const bool signalled = info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED;
    const std::string why = info.si_code == 0 ? std::string("its process was lost")
                            : signalled ? "its process ended by signal " + std::to_string(info.si_status) +
                                              (info.si_status == SIGKILL ? " (killed: out of memory?)" : "")
                                        : "its process exited with status " + std::to_string(info.si_status) +
                                              " without saying how the run ended";
    endQueueEntry(m_runs_dir, entry.id, QueueState::Failed, runFolderOfProcess(m_runs_dir, after->owner_pid),
                  why);
    after = findQueueEntry(m_runs_dir, entry.id);
  }
  int status = 0;
  ::waitpid(m_busy[s]->pid, &status, 0);  // reaped only now
  m_busy[s].reset();
  const std::string state = after ? wordString(after->state) : "removed";
  if (after && after->state == QueueState::Done) ++m_done;
  if (after && after->state == QueueState::Failed) ++m_failed;
  std::cout << "== " << name(s, entry) << ": " << state
            << (after && !after->message.empty() ? " — " + after->message : "") << "\n"
            << std::flush;
}

void Worker::forwardSigterm() {
  if (g_worker_signal.load() != SIGTERM || m_forwarded) return;
  for (const std::optional<Busy>& b : m_busy) {
    if (b) ::kill(b->pid, SIGTERM);
  }
  m_forwarded = true;
}

bool Worker::claimFree(bool any_busy) {
  bool claimed_any = false, idle_slot = false;
  for (size_t s = 0; s < m_slots.size(); ++s) {
    if (m_busy[s]) continue;
    const std::optional<QueueEntry> entry = claimFromQueue(m_runs_dir, ::getpid());
    if (!entry) {
      idle_slot = true;
      break;
    }
    claimed_any = true;
    m_waiting_said = false;
    std::cout << "== " << name(s, *entry)
              << (entry->run_folder.empty() ? "" : ": resuming " + entry->run_folder) << "\n"
              << std::flush;
    if (!entry->cwd.empty() && !fs::is_directory(entry->cwd)) {
      endQueueEntry(
          m_runs_dir, entry->id, QueueState::Failed, "",
          "the folder it was queued from, " + entry->cwd +
              ", is gone (relative paths in its experiment resolve there): queue it again from another");
      std::cout << "== " << name(s, *entry) << ": failed — " << entry->cwd << " is gone\n" << std::flush;
      ++m_failed;
      continue;
    }
    m_busy[s] = Busy{*entry, startChild(m_runs_dir, *entry, m_slots[s])};
    any_busy = true;
  }
  return claimed_any || !idle_slot || any_busy;
}

void Worker::waitABit() const {
  for (int i = 0; i < 50 && g_worker_signal.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (const std::optional<Busy>& b : m_busy) {
      siginfo_t info{};
      if (b && ::waitid(P_PID, static_cast<id_t>(b->pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid != 0) {
        return;
      }
    }
  }
}

void Worker::printTotals() const {
  std::cout << (g_worker_signal.load() != 0 ? "Queue worker stopped" : "Queue finished") << ": " << m_done
            << " done, " << m_failed << " failed";
  int waiting = 0;
  for (const QueueEntry& e : listQueue(m_runs_dir))
    waiting += e.state == QueueState::Queued || e.state == QueueState::Held ? 1 : 0;
  std::cout << ", " << waiting << " waiting.\n";
}

}  // namespace

int runQueueWorker(const std::string& runs_dir, bool until_empty, const std::vector<QueueSlot>& given_slots) {
  std::signal(SIGINT, onWorkerSignal);
  std::signal(SIGTERM, onWorkerSignal);
  Worker worker(runs_dir, given_slots);
  while (true) {
    const bool any_busy = worker.reapEnded();
    if (g_worker_signal.load() != 0) {
      worker.forwardSigterm();
      if (!any_busy) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    if (!worker.claimFree(any_busy)) {
      if (until_empty) break;
      worker.sayWaiting();
    }
    worker.waitABit();
  }
  worker.printTotals();
  return g_worker_signal.load() != 0 ? 128 + g_worker_signal.load() : kExitOk;
}

}  // namespace wb::cli
