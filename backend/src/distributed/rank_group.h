#pragma once
// The ranks of a data-parallel run as the training loop and the model see them: who this rank is and the few
// collectives they need (c10d's, see process_group_ranks.h). A run on one device gets SingleRank, whose
// collectives do nothing, so the loop has one code path for one device and for many.

#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace wb {

// When an asynchronous collective was done, for the communication figures (GradientAllreduce::Times): where a
// communication thread completes it (Gloo), the host time it did; where it is queued on a device's stream
// (NCCL, whose future completes as it is launched), its duration on the device between the CUDA events c10d
// records around it (TORCH_NCCL_ENABLE_TIMING, set by prepareNcclEnvironment): `device_ms`, which answers -1
// until the collective has finished there.
struct CollectiveTiming {
  std::atomic<int64_t> done_ns{0};  // steady clock; 0 until known
  std::function<double()> device_ms;
};

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // This rank's device ("cpu", "cuda:1"); collectives take tensors on it.
  virtual torch::Device device() const = 0;

  // Sums `tensor` (on device()) across ranks, in place; blocks until done.
  virtual void allreduceSum(torch::Tensor& tensor) = 0;
  // Starts summing `tensor` in place across ranks; the returned function blocks until it is done. Every rank
  // must start the same collectives in the same order.
  virtual std::function<void()> allreduceSumAsync(torch::Tensor tensor) = 0;
  // The same, timed into `timing`: how the trainer measures how much of the communication ran behind
  // backward.
  virtual std::function<void()> allreduceSumAsync(torch::Tensor tensor,
                                                  std::shared_ptr<CollectiveTiming> timing) {
    auto wait = allreduceSumAsync(std::move(tensor));
    return [wait, timing] {
      wait();
      if (!timing) return;
      timing->done_ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now().time_since_epoch())
                                .count());
    };
  }
  // Whether this group's collectives are timed on the device (CollectiveTiming::device_ms): NCCL's.
  virtual bool timesOnDevice() const { return false; }
  // Copies rank `root`'s tensors into every rank's (same shapes), in place; blocks until done.
  virtual void broadcast(std::vector<torch::Tensor>& tensors, int root = 0) = 0;
  // Every rank's 1-D float64 `row` (same length everywhere), stacked into [size(), n] on the CPU. Blocking.
  virtual torch::Tensor allgather(const torch::Tensor& row) = 0;
  // Sharded training state (train.shard), on flat 1-D buffers of one dtype on device(), blocking:
  // reduce-scatter: `input` (size()·n elements) summed across ranks, this rank receiving elements
  // [rank·n, (rank+1)·n) of the sum in `output` (n elements);
  virtual void reduceScatterSum(const torch::Tensor& input, torch::Tensor& output) = 0;
  // all-gather: every rank's `input` (n elements) into `output` (size()·n), rank r's at [r·n, (r+1)·n).
  virtual void allgatherInto(const torch::Tensor& input, torch::Tensor& output) = 0;
};

class SingleRank final : public RankGroup {
 public:
  explicit SingleRank(torch::Device device) : m_device(device) {}
  int rank() const override { return 0; }
  int size() const override { return 1; }
  torch::Device device() const override { return m_device; }
  void allreduceSum(torch::Tensor&) override {}
  std::function<void()> allreduceSumAsync(torch::Tensor) override {
    return [] {};
  }
  using RankGroup::allreduceSumAsync;
  void broadcast(std::vector<torch::Tensor>&, int) override {}
  torch::Tensor allgather(const torch::Tensor& row) override {
    return row.to(torch::kCPU, torch::kFloat64).reshape({1, -1});
  }
  void reduceScatterSum(const torch::Tensor& input, torch::Tensor& output) override {
    torch::NoGradGuard no_grad;
    output.copy_(input);
  }
  void allgatherInto(const torch::Tensor& input, torch::Tensor& output) override {
    torch::NoGradGuard no_grad;
    output.copy_(input);
  }

 private:
  torch::Device m_device;
};

}  // namespace wb
