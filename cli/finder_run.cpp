#include "finder_run.h"

#include <atomic>
#include <csignal>
#include <exception>
#include <iostream>

#include "cli_commands.h"
#include "run_session.h"
#include "workbench/errors.h"

namespace wb::cli {
namespace {

std::atomic<bool> g_finder_interrupted{false};

extern "C" void onFinderInterrupt(int) {
  g_finder_interrupted = true;
}

// Puts the previous SIGINT handler back however the finder ends.
class SigintAsCancel {
 public:
  SigintAsCancel() : m_previous(std::signal(SIGINT, onFinderInterrupt)) { g_finder_interrupted = false; }
  ~SigintAsCancel() { std::signal(SIGINT, m_previous); }
  SigintAsCancel(const SigintAsCancel&) = delete;
  SigintAsCancel& operator=(const SigintAsCancel&) = delete;

 private:
  void (*m_previous)(int);
};

}  // namespace

int runFinder(const std::string& subject, const std::function<void(const FinderCallbacks&)>& run) {
  SigintAsCancel sigint;
  FinderCallbacks callbacks;
  // The finder's own lines (set-up, trials) go to stderr; stdout keeps the table or the JSON object.
  callbacks.log = [](const std::string& line) { std::cerr << line << "\n"; };
  callbacks.cancelled = [] { return g_finder_interrupted.load(); };
  try {
    run(callbacks);
  } catch (const UserError& e) {
    printError(e.what(), e.hint());
    return kExitBadInput;
  } catch (const std::exception& e) {
    printError(e.what(), subject +
                             " failed while training; `workbench-cli train` with the same experiment reports "
                             "the same problem with more detail.");
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace wb::cli
