// The loader's work queue: results come out in the order the jobs were asked for whatever the worker count
// and however long each job takes; no more than `depth` are ever in flight (memory bounded by the queue);
// with 0 workers the jobs run in the taker's thread; a job's exception reaches the taker at its turn, after
// the earlier results; a queue dropped with work pending stops.

#include "data/ordered_work_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <stdexcept>
#include <thread>

namespace wb {
namespace {

using Queue = OrderedWorkQueue<int>;

// Jobs 0..count-1 returning their index after a pseudo-random pause; counts how many run at once.
std::function<std::optional<Queue::Job>()> jobs(int count, std::atomic<int>& running, std::atomic<int>& most,
                                                int throw_at = -1) {
  auto next = std::make_shared<int>(0);
  return [=, &running, &most]() -> std::optional<Queue::Job> {
    if (*next >= count) return std::nullopt;
    const int index = (*next)++;
    return Queue::Job([index, throw_at, &running, &most] {
      const int now = ++running;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::microseconds((index * 7919) % 13 * 150));
      --running;
      if (index == throw_at) throw std::runtime_error("job " + std::to_string(index) + " failed");
      return index;
    });
  };
}

TEST(OrderedWorkQueue, ResultsComeInOrderWhateverTheWorkerCount) {
  for (const int workers : {0, 1, 2, 4}) {
    std::atomic<int> running{0}, most{0};
    Queue queue(workers, 3, jobs(40, running, most));
    std::vector<int> got;
    while (std::optional<int> r = queue.take()) got.push_back(*r);
    ASSERT_EQ(got.size(), 40u) << workers << " workers";
    for (int i = 0; i < 40; ++i) EXPECT_EQ(got[i], i) << workers << " workers";
    EXPECT_FALSE(queue.take().has_value());
    if (workers >= 2) {
      EXPECT_GE(most.load(), 2) << "the workers did not work at once";
    }
  }
}

TEST(OrderedWorkQueue, NoMoreThanDepthInFlight) {
  std::atomic<int> running{0}, most{0};
  Queue queue(4, 2, jobs(20, running, most));
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a slow consumer: the workers run ahead
    EXPECT_LE(queue.inFlight(), 2);
    ASSERT_EQ(queue.take(), i);
  }
  EXPECT_LE(most.load(), 2);
}

TEST(OrderedWorkQueue, NoWorkersRunTheJobInTheTakersThread) {
  const std::thread::id taker = std::this_thread::get_id();
  bool called = false;
  Queue queue(0, 4, [&]() -> std::optional<Queue::Job> {
    if (called) return std::nullopt;
    called = true;
    return Queue::Job([taker] { return std::this_thread::get_id() == taker ? 1 : 0; });
  });
  EXPECT_EQ(queue.take(), 1);
  EXPECT_FALSE(queue.take().has_value());
}

TEST(OrderedWorkQueue, AJobsErrorArrivesAtItsTurn) {
  for (const int workers : {0, 3}) {
    std::atomic<int> running{0}, most{0};
    Queue queue(workers, 4, jobs(10, running, most, /*throw_at=*/5));
    for (int i = 0; i < 5; ++i) ASSERT_EQ(queue.take(), i) << workers << " workers";
    EXPECT_THROW(queue.take(), std::runtime_error) << workers << " workers";
  }
}

TEST(OrderedWorkQueue, DroppedWithWorkPendingItStops) {
  std::atomic<int> running{0}, most{0};
  {
    Queue queue(3, 8, jobs(1000, running, most));
    EXPECT_EQ(queue.take(), 0);
  }  // the destructor returns: workers stopped, results not taken dropped
  EXPECT_EQ(running.load(), 0);
}

}  // namespace
}  // namespace wb
