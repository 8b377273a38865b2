#pragma once
// Hands event batches from the run's worker thread to the CLI's main thread, which prints them and watches
// for signals; the worker never waits on the terminal.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "workbench/events.h"

namespace wb::cli {

class EventQueue {
 public:
  void push(EventBatch&& batch) {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_batches.push_back(std::move(batch));
    }
    m_cv.notify_one();
  }
  // Waits up to `timeout` for batches; returns all that are queued (possibly none).
  std::deque<EventBatch> take(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_cv.wait_for(lock, timeout, [this] { return !m_batches.empty(); });
    std::deque<EventBatch> out;
    out.swap(m_batches);
    return out;
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<EventBatch> m_batches;
};

}  // namespace wb::cli
