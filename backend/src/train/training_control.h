#pragma once
// Pause, resume and stop requests from the front end's thread to the training thread. The training thread
// polls between steps; a pause blocks it (not the caller) until resumed or stopped.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace wb {

class TrainingControl {
 public:
  void requestStop() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
    ++m_generation;
    m_cv.notify_all();
  }
  void pause() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_paused = true;
  }
  void resume() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_paused = false;
    ++m_generation;
    m_cv.notify_all();
  }
  // A checkpoint after the step in flight (the window's "Checkpoint now"); wakes a paused run to write it.
  void requestCheckpoint() {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_checkpoint = true;
    ++m_generation;
    m_cv.notify_all();
  }
  bool takeCheckpointRequest() { return m_checkpoint.exchange(false); }
  bool stopRequested() const { return m_stop.load(); }
  bool paused() const { return m_paused.load(); }

  // Counts the requests that end a wait (resume, stop, checkpoint). Data-parallel ranks in one process share
  // this control: each reads the count before the ranks agree on what to do, and waits until it moves, so
  // every rank wakes for a request that one of them consumes.
  uint64_t generation() const { return m_generation.load(); }

  // Blocks while paused until a request arrives after `seen_generation` (resume, stop, checkpoint); returns
  // how long it waited so timings can leave the pause out.
  std::chrono::steady_clock::duration waitWhilePaused(uint64_t seen_generation) {
    if (!m_paused.load()) return {};
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(m_mutex);
    m_cv.wait(lock, [&] { return !m_paused.load() || m_stop.load() || m_generation.load() != seen_generation; });
    return std::chrono::steady_clock::now() - start;
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::atomic<bool> m_stop{false};
  std::atomic<bool> m_paused{false};
  std::atomic<bool> m_checkpoint{false};
  std::atomic<uint64_t> m_generation{0};
};

}  // namespace wb
