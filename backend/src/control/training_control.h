#pragma once
// Pause, resume and stop requests from the front end's thread to the training thread, and the live changes
// (learning rate, stop after this epoch). The training thread polls between steps; a pause blocks it (not
// the caller) until resumed, stopped, or given a change to apply.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "workbench/profile_report.h"
#include "workbench/run_control.h"
#include "workbench/training_run.h"

namespace wb {

class TrainingControl {
 public:
  // Set before the run starts, read by rank 0 after each validation (no lock: never changed while training).
  void setValidationJudge(ValidationJudge judge) { m_judge = std::move(judge); }
  const ValidationJudge& validationJudge() const { return m_judge; }
  // The tags a new run's run.json starts with (set before the run starts).
  void setRunTags(std::vector<std::string> tags) { m_tags = std::move(tags); }
  const std::vector<std::string>& runTags() const { return m_tags; }

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

  // Learning-rate changes, in the order asked; rank 0 takes one per step boundary. Wakes a paused run so the
  // change is applied (and confirmed) at once.
  void requestLrChange(const LrChange& change) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_lr_changes.push_back(change);
    m_lr_pending = true;
    ++m_generation;
    m_cv.notify_all();
  }
  // One atomic load per step when nothing is pending.
  std::optional<LrChange> takeLrChange() {
    if (!m_lr_pending.load()) return std::nullopt;
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_lr_changes.empty()) return std::nullopt;
    LrChange change = m_lr_changes.front();
    m_lr_changes.pop_front();
    m_lr_pending = !m_lr_changes.empty();
    return change;
  }

  // The run ends at the end of the epoch in progress. Kept once asked (every step's agreement reads it).
  void requestStopAfterEpoch(const std::string& source) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_stop_after_epoch.load()) m_stop_after_epoch_source = source;
    m_stop_after_epoch = true;
    ++m_generation;
    m_cv.notify_all();
  }
  bool stopAfterEpochRequested() const { return m_stop_after_epoch.load(); }
  std::string stopAfterEpochSource() {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_stop_after_epoch_source;
  }
  // Profiles of a few steps (workbench/profile_report.h), in the order asked; rank 0 takes them at step
  // boundaries. A paused run is not woken: it profiles the steps it trains after Resume.
  void requestProfile(const ProfileRequest& request) {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_profiles.push_back(request);
    m_profile_pending = true;
  }
  // One atomic load per step when nothing is pending.
  std::optional<ProfileRequest> takeProfileRequest() {
    if (!m_profile_pending.load()) return std::nullopt;
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_profiles.empty()) return std::nullopt;
    ProfileRequest request = m_profiles.front();
    m_profiles.pop_front();
    m_profile_pending = !m_profiles.empty();
    return request;
  }

  bool stopRequested() const { return m_stop.load(); }
  bool paused() const { return m_paused.load(); }

  // Counts the requests that end a wait (resume, stop, checkpoint, live changes). Data-parallel ranks in one
  // process share this control: each reads the count before the ranks agree on what to do, and waits until it
  // moves, so every rank wakes for a request that one of them consumes.
  uint64_t generation() const { return m_generation.load(); }

  // Blocks while paused until a request arrives after `seen_generation` (resume, stop, checkpoint, change);
  // returns how long it waited so timings can leave the pause out.
  std::chrono::steady_clock::duration waitWhilePaused(uint64_t seen_generation) {
    if (!m_paused.load()) return {};
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(m_mutex);
    m_cv.wait(lock,
              [&] { return !m_paused.load() || m_stop.load() || m_generation.load() != seen_generation; });
    return std::chrono::steady_clock::now() - start;
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::atomic<bool> m_stop{false};
  std::atomic<bool> m_paused{false};
  std::atomic<bool> m_checkpoint{false};
  std::atomic<uint64_t> m_generation{0};
  std::deque<LrChange> m_lr_changes;
  std::atomic<bool> m_lr_pending{false};
  std::deque<ProfileRequest> m_profiles;
  std::atomic<bool> m_profile_pending{false};
  std::atomic<bool> m_stop_after_epoch{false};
  std::string m_stop_after_epoch_source;
  ValidationJudge m_judge;
  std::vector<std::string> m_tags;
};

}  // namespace wb
