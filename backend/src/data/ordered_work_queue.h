#pragma once
// Work done by several threads and handed out in the order it was asked for. The data loader's workers (the
// article's num_workers) read, decode and augment batches ahead of the training step, at most `depth` batches
// in flight, so memory is bounded by the queue and not by the dataset; the step takes them in order, so the
// batches are the same for a seed whatever the worker count. With 0 workers each job runs in the taker's
// thread when it is taken (num_workers=0). A job's exception reaches the taker at that job's turn, after
// every earlier result. Plain C++: no Torch.

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace wb {

template <typename Result>
class OrderedWorkQueue {
 public:
  using Job = std::function<Result()>;
  // `next_job` gives the jobs in order (called under the queue's lock, from one thread at a time); nullopt
  // when there are no more. `on_worker_start` runs first in each worker thread (its per-thread settings); the
  // constructor returns once every worker has run it.
  OrderedWorkQueue(int workers, int depth, std::function<std::optional<Job>()> next_job,
                   const std::function<void()>& on_worker_start = {})
      : m_depth(depth < 1 ? 1 : depth), m_next_job(std::move(next_job)) {
    for (int i = 0; i < workers; ++i) {
      m_threads.emplace_back([this, on_worker_start] {
        if (on_worker_start) on_worker_start();
        {
          std::lock_guard<std::mutex> lock(m_mutex);
          ++m_started;
        }
        m_changed.notify_all();
        work();
      });
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    m_changed.wait(lock, [&] { return m_started == static_cast<int>(m_threads.size()); });
  }
  // Stops the workers: jobs running finish, results not taken are dropped.
  ~OrderedWorkQueue() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_stopping = true;
    }
    m_changed.notify_all();
    for (auto& t : m_threads) t.join();
  }
  OrderedWorkQueue(const OrderedWorkQueue&) = delete;
  OrderedWorkQueue& operator=(const OrderedWorkQueue&) = delete;

  // The next result in order; nullopt once every job's result was taken. Rethrows the job's exception.
  std::optional<Result> take() {
    if (m_threads.empty()) {
      std::optional<Job> job = m_next_job();
      if (!job) return std::nullopt;
      return (*job)();
    }
    std::unique_lock<std::mutex> lock(m_mutex);
    m_changed.wait(
        lock, [this] { return m_done.count(m_next_take) > 0 || (m_exhausted && m_next_take == m_issued); });
    auto it = m_done.find(m_next_take);
    if (it == m_done.end()) return std::nullopt;
    Slot slot = std::move(it->second);
    m_done.erase(it);
    ++m_next_take;
    lock.unlock();
    m_changed.notify_all();  // a place in the queue is free
    if (slot.error) std::rethrow_exception(slot.error);
    return std::move(slot.result);
  }

  // Drops every result not taken and takes jobs from `next_job` from now on (the loader's new epoch). Jobs
  // running finish and their results are thrown away.
  void restart(std::function<std::optional<Job>()> next_job) {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_next_job = std::move(next_job);
      m_done.clear();
      m_next_take = m_issued;
      m_exhausted = false;
    }
    m_changed.notify_all();
  }

  // Results finished or being made, not yet taken (for tests and the loader's figures).
  int64_t inFlight() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_issued - m_next_take;
  }

 private:
  struct Slot {
    std::optional<Result> result;
    std::exception_ptr error;
  };

  void work() {
    for (;;) {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_changed.wait(lock,
                     [this] { return m_stopping || (!m_exhausted && m_issued - m_next_take < m_depth); });
      if (m_stopping) return;
      std::optional<Job> job;
      try {
        job = m_next_job();
      } catch (...) {
        m_done[m_issued++].error = std::current_exception();  // the job list failed: its turn reports it
        m_exhausted = true;
        lock.unlock();
        m_changed.notify_all();
        continue;
      }
      if (!job) {
        m_exhausted = true;
        lock.unlock();
        m_changed.notify_all();
        continue;
      }
      const int64_t ticket = m_issued++;
      lock.unlock();
      Slot slot;
      try {
        slot.result = (*job)();
      } catch (...) {
        slot.error = std::current_exception();
      }
      lock.lock();
      if (ticket >= m_next_take) m_done[ticket] = std::move(slot);  // else restart() dropped it
      lock.unlock();
      m_changed.notify_all();
    }
  }

  const int64_t m_depth;
  std::function<std::optional<Job>()> m_next_job;
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::map<int64_t, Slot> m_done;
  int64_t m_issued = 0;
  int64_t m_next_take = 0;
  bool m_exhausted = false;
  bool m_stopping = false;
  int m_started = 0;
  std::vector<std::thread> m_threads;  // last: started once everything above is set
};

}  // namespace wb
