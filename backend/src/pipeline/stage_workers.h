#pragma once
// The pipeline's stage threads, one per stage, kept for the whole run rather than started for every batch:
// no thread creation per step, and in a profile's trace each stage stays one thread (one row) across the
// profiled steps. A batch's work is handed to all of them at once and waited for.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wb {

class StageWorkers {
 public:
  explicit StageWorkers(size_t stages);
  ~StageWorkers();  // ends and joins the threads
  StageWorkers(const StageWorkers&) = delete;
  StageWorkers& operator=(const StageWorkers&) = delete;

  // job(s) on stage s's thread, for every stage at once; returns when all are done. `job` must not throw
  // (the pipeline's stage catches its own errors and reports them through the schedule).
  void runAll(const std::function<void(size_t)>& job);

 private:
  void loop(size_t stage);

  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::condition_variable m_done;
  const std::function<void(size_t)>* m_job = nullptr;
  uint64_t m_generation = 0;  // one more for every runAll: a worker runs each generation's job once
  size_t m_pending = 0;       // workers still running this generation's job
  bool m_stop = false;
  std::vector<std::thread> m_threads;
};

}  // namespace wb
