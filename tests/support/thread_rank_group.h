#pragma once
// Ranks that are threads of one test process, without c10d: a RankGroup whose collectives meet at a barrier
// in a shared hub. The last rank to arrive combines the contributions in rank order (so the result does not
// depend on which thread came first) and every rank takes the same result. CPU tensors only. A rank that
// waits longer than the hub's timeout throws instead of hanging the test.
//
//   ThreadRankHub hub(2);
//   runRanks(2, [&](int rank) { ThreadRankGroup group(hub, rank); ... });

#include <torch/torch.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "distributed/rank_group.h"

namespace wb::test {

class ThreadRankHub {
 public:
  explicit ThreadRankHub(int size, std::chrono::milliseconds timeout = std::chrono::seconds(60))
      : m_size(size), m_timeout(timeout), m_slots(static_cast<size_t>(size)) {}

  int size() const { return m_size; }
  // How many collectives have completed.
  int64_t collectives() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_generation;
  }

  // Deposits `contribution` as rank `rank`'s; when every rank has, `combine` (run once, by the last to
  // arrive) maps the contributions, in rank order, to the result that every rank gets back.
  torch::Tensor exchange(int rank, const torch::Tensor& contribution, const std::string& what,
                         const std::function<torch::Tensor(const std::vector<torch::Tensor>&)>& combine) {
    std::unique_lock<std::mutex> lock(m_mutex);
    const int64_t generation = m_generation;
    if (m_what.empty()) m_what = what;
    if (m_what != what) {
      throw std::logic_error("rank " + std::to_string(rank) + " called " + what + " while another called " +
                             m_what);
    }
    m_slots[static_cast<size_t>(rank)] = contribution.detach().clone();
    if (++m_arrived == m_size) {
      m_result = combine(m_slots);
      for (auto& slot : m_slots) slot = torch::Tensor();
      m_arrived = 0;
      m_what.clear();
      ++m_generation;
      m_changed.notify_all();
      return m_result;
    }
    if (!m_changed.wait_for(lock, m_timeout, [&] { return m_generation != generation; })) {
      throw std::runtime_error("rank " + std::to_string(rank) + ": the other ranks did not come to " + what);
    }
    return m_result;
  }

 private:
  const int m_size;
  const std::chrono::milliseconds m_timeout;
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::vector<torch::Tensor> m_slots;
  int m_arrived = 0;
  int64_t m_generation = 0;
  std::string m_what;
  torch::Tensor m_result;
};

class ThreadRankGroup final : public RankGroup {
 public:
  ThreadRankGroup(ThreadRankHub& hub, int rank) : m_hub(hub), m_rank(rank) {}
  int rank() const override { return m_rank; }
  int size() const override { return m_hub.size(); }
  torch::Device device() const override { return torch::kCPU; }

  void allreduceSum(torch::Tensor& tensor) override {
    const torch::Tensor sum = m_hub.exchange(m_rank, tensor, "allreduceSum", [](const auto& parts) {
      torch::Tensor total = parts[0].clone();
      for (size_t i = 1; i < parts.size(); ++i) total += parts[i];
      return total;
    });
    torch::NoGradGuard noGrad;
    tensor.copy_(sum);
  }
  // Done at once: a thread that waits is as good as an asynchronous collective for tests.
  std::function<void()> allreduceSumAsync(torch::Tensor tensor) override {
    allreduceSum(tensor);
    return [] {};
  }
  using RankGroup::allreduceSumAsync;
  void broadcast(std::vector<torch::Tensor>& tensors, int root = 0) override {
    for (torch::Tensor& t : tensors) {
      const torch::Tensor value =
          m_hub.exchange(m_rank, t, "broadcast", [root](const auto& parts) { return parts[root].clone(); });
      torch::NoGradGuard noGrad;
      t.copy_(value);
    }
  }
  torch::Tensor allgather(const torch::Tensor& row) override {
    return m_hub
        .exchange(m_rank, row.to(torch::kCPU, torch::kFloat64).reshape({-1}), "allgather",
                  [](const auto& parts) { return torch::stack(parts); })
        .clone();  // every rank gets the same result: a copy of its own
  }
  void reduceScatterSum(const torch::Tensor& input, torch::Tensor& output) override {
    torch::Tensor sum = input.clone();
    allreduceSum(sum);
    torch::NoGradGuard noGrad;
    output.copy_(sum.narrow(0, m_rank * output.numel(), output.numel()));
  }
  void allgatherInto(const torch::Tensor& input, torch::Tensor& output) override {
    const torch::Tensor all = m_hub.exchange(m_rank, input.reshape({-1}), "allgatherInto",
                                             [](const auto& parts) { return torch::cat(parts); });
    torch::NoGradGuard noGrad;
    output.copy_(all);
  }

 private:
  ThreadRankHub& m_hub;
  int m_rank;
};

// Runs body(rank) on `size` threads and joins them; rethrows the first exception a rank threw.
inline void runRanks(int size, const std::function<void(int rank)>& body) {
  std::vector<std::exception_ptr> errors(static_cast<size_t>(size));
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r) {
    threads.emplace_back([&, r] {
      try {
        body(r);
      } catch (...) {
        errors[static_cast<size_t>(r)] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace wb::test
