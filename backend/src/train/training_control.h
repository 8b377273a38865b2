#pragma once
// Pause, resume and stop requests from the front end's thread to the training thread. The training thread
// polls between steps; a pause blocks it (not the caller) until resumed or stopped.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace wb {

class TrainingControl {
 public:
  void requestStop() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
    m_cv.notify_all();
  }
  void pause() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_paused = true;
  }
  void resume() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_paused = false;
    m_cv.notify_all();
  }
  // A checkpoint after the step in flight (the window's "Checkpoint now"); wakes a paused run to write it.
  void requestCheckpoint() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_checkpoint = true;
    m_cv.notify_all();
  }
  bool takeCheckpointRequest() { return m_checkpoint.exchange(false); }
  bool stopRequested() const { return m_stop.load(); }
  bool paused() const { return m_paused.load(); }

  // Blocks while paused (until resumed, stopped or asked for a checkpoint); returns how long it waited so
  // timings can leave the pause out.
  std::chrono::steady_clock::duration waitWhilePaused() {
    if (!m_paused.load()) return {};
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(m_mutex);
    m_cv.wait(lock, [this] { return !m_paused.load() || m_stop.load() || m_checkpoint.load(); });
    return std::chrono::steady_clock::now() - start;
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::atomic<bool> m_stop{false};
  std::atomic<bool> m_paused{false};
  std::atomic<bool> m_checkpoint{false};
};

}  // namespace wb
