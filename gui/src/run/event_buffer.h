#pragma once
// Hands event batches from the run's worker thread to the UI thread. The worker only appends under a short
// lock; the UI thread takes everything at once on its drain timer, so a burst of batches costs one UI update.

#include <mutex>
#include <utility>

#include "workbench/events.h"

namespace wb::gui {

class EventBuffer {
 public:
  void push(EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_events.empty()) {
      m_events = std::move(batch);
    } else {
      m_events.reserve(m_events.size() + batch.size());
      for (Event& e : batch) m_events.push_back(std::move(e));
    }
  }

  EventBatch take() {
    EventBatch out;
    std::lock_guard<std::mutex> lock(m_mutex);
    out.swap(m_events);
    return out;
  }

 private:
  std::mutex m_mutex;
  EventBatch m_events;
};

}  // namespace wb::gui
