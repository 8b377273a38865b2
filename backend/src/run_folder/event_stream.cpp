#include "run_folder/event_stream.h"

#include "run_folder/run_folder.h"
#include "util/atomic_file.h"

namespace wb {
namespace {

constexpr auto kFlushInterval = std::chrono::milliseconds(100);

bool flushesAtOnce(const Event& event) {
  return !std::holds_alternative<StepMetrics>(event) && !std::holds_alternative<LogLine>(event);
}

}  // namespace

EventStream::EventStream(Sink sink)
    : m_sink(std::move(sink)), m_last_flush(std::chrono::steady_clock::now()) {}

void EventStream::setRecorder(RunFolder* folder) {
  m_recorder = folder;
}

std::string EventStream::recordingFolder() const {
  return m_recorder ? m_recorder->path() : std::string();
}

void EventStream::post(Event event) {
  bool flush_now = false;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    flush_now = flushesAtOnce(event) || std::chrono::steady_clock::now() - m_last_flush >= kFlushInterval;
    m_pending.push_back(std::move(event));
  }
  if (flush_now) flush();
}

void EventStream::log(LogLevel level, std::string text) {
  post(LogLine{level, std::move(text)});
}

void EventStream::flush() {
  EventBatch batch;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_pending.empty()) return;
    batch.swap(m_pending);
    m_last_flush = std::chrono::steady_clock::now();
  }
  std::exception_ptr record_failure;
  if (m_recorder) {
    try {
      m_recorder->append(batch);
    } catch (const FileWriteError& error) {
      // Nothing more goes to a folder that refused a write (the next batch would tear a line in half). The
      // subscriber still gets this batch, with the failure in it, before the poster hears of it.
      m_recorder = nullptr;
      batch.push_back(
          LogLine{LogLevel::Error, std::string("Recording stopped: ") + error.what() + " " + error.hint()});
      record_failure = std::current_exception();
    }
  }
  if (m_sink) m_sink(std::move(batch));
  if (record_failure) std::rethrow_exception(record_failure);
}

}  // namespace wb
