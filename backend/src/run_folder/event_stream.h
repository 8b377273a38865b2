#pragma once
// Collects a run's events and hands them on in batches: to the subscriber (CLI, window) and to the run
// folder's files. A batch goes out at most every ~100 ms while steps run, and at once for epochs, errors and
// the end, so subscribers never get one callback per scalar.

#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "workbench/events.h"

namespace wb {

class RunFolder;

class EventStream {
 public:
  using Sink = std::function<void(EventBatch&&)>;

  explicit EventStream(Sink sink);

  // Also append every batch to the run folder's files. When that fails (a full disk), recording stops, the
  // batch still reaches the sink with an error line, and the post()/flush() that met it throws the
  // FileWriteError once, so the run ends with it; later posts only reach the sink.
  void setRecorder(RunFolder* folder);
  // The run folder the stream records into (a profile's files go there); empty when it records nowhere.
  std::string recordingFolder() const;
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
