#include "pipeline/stage_workers.h"

namespace wb {

StageWorkers::StageWorkers(size_t stages) {
  m_threads.reserve(stages);
  for (size_t s = 0; s < stages; ++s) m_threads.emplace_back([this, s] { loop(s); });
}

StageWorkers::~StageWorkers() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  for (std::thread& thread : m_threads) thread.join();
}

void StageWorkers::runAll(const std::function<void(size_t)>& job) {
  std::unique_lock<std::mutex> lock(m_mutex);
  m_job = &job;
  m_pending = m_threads.size();
  ++m_generation;
  m_wake.notify_all();
  m_done.wait(lock, [this] { return m_pending == 0; });
  m_job = nullptr;
}

void StageWorkers::loop(size_t stage) {
  uint64_t seen = 0;
  while (true) {
    const std::function<void(size_t)>* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
      if (m_stop) return;
      seen = m_generation;
      job = m_job;
    }
    (*job)(stage);
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      --m_pending;
    }
    m_done.notify_one();
  }
}

}  // namespace wb
