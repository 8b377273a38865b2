#pragma once
// Collects a run's events and hands them on in batches: to the subscriber (CLI, window) and to the run
// folder's files. A batch goes out at most every ~100 ms while steps run, and at once for epochs, errors and
// the end, so subscribers never get one callback per scalar.

#include <chrono>
#include <functional>
#include <mutex>

#include "workbench/events.h"

namespace wb {

class RunFolder;

class EventStream {
 public:
  using Sink = std::function<void(EventBatch&&)>;

  explicit EventStream(Sink sink);

  void setRecorder(RunFolder* folder);  // also append every batch to the run folder's files
  void post(Event event);
  void log(LogLevel level, std::string text);
  void flush();

 private:
  Sink m_sink;
  RunFolder* m_recorder = nullptr;
  std::mutex m_mutex;
  EventBatch m_pending;
  std::chrono::steady_clock::time_point m_last_flush;
};

}  // namespace wb
