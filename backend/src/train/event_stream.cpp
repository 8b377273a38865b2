#include "train/event_stream.h"

#include "train/run_folder.h"

namespace wb {
namespace {

constexpr auto kFlushInterval = std::chrono::milliseconds(100);

bool flushesAtOnce(const Event& event) {
  return !std::holds_alternative<StepMetrics>(event) && !std::holds_alternative<LogLine>(event);
}

}  // namespace

EventStream::EventStream(Sink sink) : m_sink(std::move(sink)), m_last_flush(std::chrono::steady_clock::now()) {}

void EventStream::setRecorder(RunFolder* folder) { m_recorder = folder; }

void EventStream::post(Event event) {
  bool flush_now = false;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    flush_now = flushesAtOnce(event) || std::chrono::steady_clock::now() - m_last_flush >= kFlushInterval;
    m_pending.push_back(std::move(event));
  }
  if (flush_now) flush();
}

void EventStream::log(LogLevel level, std::string text) { post(LogLine{level, std::move(text)}); }

void EventStream::flush() {
  EventBatch batch;
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_pending.empty()) return;
    batch.swap(m_pending);
    m_last_flush = std::chrono::steady_clock::now();
  }
  if (m_recorder) m_recorder->append(batch);
  if (m_sink) m_sink(std::move(batch));
}

}  // namespace wb
