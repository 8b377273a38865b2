#pragma once
// Takes the requests that other processes leave in a live run's control/ folder (workbench-cli control) and
// hands them to the run's TrainingControl, like the window's buttons. Polls on its own thread every half
// second, so the training loop pays nothing per step and a paused run still takes requests.

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "control/training_control.h"

namespace wb {

class ControlRequestWatcher {
 public:
  // Starts polling RUN_DIR/control/. Requests left there before the run started are removed unread (they were
  // meant for a session that has ended); staleRequests() counts them.
  ControlRequestWatcher(std::string run_dir, TrainingControl& control);
  ~ControlRequestWatcher();  // stops polling and joins
  ControlRequestWatcher(const ControlRequestWatcher&) = delete;
  ControlRequestWatcher& operator=(const ControlRequestWatcher&) = delete;

  int staleRequests() const { return m_stale; }
  // One pass over the folder (the thread calls this; tests may too).
  void poll();

 private:
  std::string m_folder;
  TrainingControl& m_control;
  int m_stale = 0;
  std::mutex m_mutex;
  std::condition_variable m_cv;
  bool m_stopping = false;
  std::thread m_thread;
};

}  // namespace wb
