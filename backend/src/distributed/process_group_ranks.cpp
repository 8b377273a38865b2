#include "distributed/process_group_ranks.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distributed/collective_backends.h"
#include "distributed/collective_error.h"
#include "torch_compat.h"

namespace wb {
namespace {

std::string secondsText(std::chrono::milliseconds timeout) {
  std::ostringstream out;
  out << static_cast<double>(timeout.count()) / 1000.0 << " s";
  return out.str();
}

// A finished collective's duration on the GPU, from the start and end events c10d recorded on its stream
// (LibTorch 2.x with TORCH_NCCL_ENABLE_TIMING); -1 while it runs, or where the backend keeps no such events.
double deviceDurationMs(c10d::Work& work) {
#if WB_TORCH_AT_LEAST(2, 1)  // Work::getDuration
  try {
    if (work.isCompleted()) return work.getDuration();
  } catch (const c10::Error&) {
  }
#else
  (void)work;
#endif
  return -1.0;
}

std::string readyKey(int rank) {
  return "wb/ready/" + std::to_string(rank);
}
std::string failedKey(int rank) {
  return "wb/failed/" + std::to_string(rank);
}

class ProcessGroupRanks final : public RankGroup {
 public:
  ProcessGroupRanks(c10::intrusive_ptr<compat::CollectiveBackend> backend,
                    c10::intrusive_ptr<c10d::Store> store, int rank, int size, torch::Device device,
                    std::chrono::milliseconds timeout)
      : m_backend(std::move(backend)),
        m_store(std::move(store)),
        m_rank(rank),
        m_size(size),
        m_device(device),
        m_timeout(timeout) {}

  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  torch::Device device() const override { return m_device; }

  void allreduceSum(torch::Tensor& tensor) override {
    std::vector<torch::Tensor> tensors{tensor};
    finish(launch([&] { return m_backend->allreduce(tensors); }, "allreduce"), "allreduce");
  }

  std::function<void()> allreduceSumAsync(torch::Tensor tensor) override {
    return allreduceSumAsync(std::move(tensor), nullptr);
  }

  std::function<void()> allreduceSumAsync(torch::Tensor tensor,
                                          std::shared_ptr<CollectiveTiming> timing) override {
    std::vector<torch::Tensor> tensors{std::move(tensor)};
    c10::intrusive_ptr<c10d::Work> work = launch([&] { return m_backend->allreduce(tensors); }, "allreduce");
    if (!timing) {
      // untimed
    } else if (timesOnDevice()) {
      // NCCL completes the future when the collective is queued: its duration is the GPU's.
      timing->device_ms = [work]() { return deviceDurationMs(*work); };
    } else {
      work->getFuture()->addCallback([timing](c10::ivalue::Future&) {
        timing->done_ns.store(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::steady_clock::now().time_since_epoch())
                                  .count());
      });
    }
    return [this, work]() mutable { finish(std::move(work), "allreduce"); };
  }

  bool timesOnDevice() const override { return usesNccl(); }

  void broadcast(std::vector<torch::Tensor>& tensors, int root) override {
    // One flat buffer per dtype: one collective for a whole model's parameters and buffers, values exact
    // (integer counters and float64 tensors are not squeezed through float32).
    std::vector<c10::ScalarType> dtypes;
    for (const auto& t : tensors) {
      if (std::find(dtypes.begin(), dtypes.end(), t.scalar_type()) == dtypes.end())
        dtypes.push_back(t.scalar_type());
    }
    torch::NoGradGuard no_grad;
    for (const c10::ScalarType dtype : dtypes) {
      std::vector<torch::Tensor> parts;
      for (const auto& t : tensors) {
        if (t.scalar_type() == dtype) parts.push_back(t.detach().reshape({-1}));
      }
      std::vector<torch::Tensor> flat{torch::cat(parts)};
      c10d::BroadcastOptions options;
      options.rootRank = root;
      finish(launch([&] { return m_backend->broadcast(flat, options); }, "broadcast"), "broadcast");
      int64_t offset = 0;
      for (auto& t : tensors) {
        if (t.scalar_type() != dtype) continue;
        const int64_t n = t.numel();
        t.detach().copy_(flat[0].narrow(0, offset, n).view(t.sizes()));
        offset += n;
      }
    }
  }

  void reduceScatterSum(const torch::Tensor& input, torch::Tensor& output) override {
    torch::NoGradGuard no_grad;
    const int64_t n = output.numel();
    if (input.numel() != n * m_size) throw std::logic_error("reduceScatterSum: input is not size() x output");
    if (usesNccl()) {
      // NCCL's own reduce-scatter: each rank receives only its slice of the sum.
      torch::Tensor in = input.contiguous();
      torch::Tensor out = output.is_contiguous() ? output : output.contiguous();
      finish(launch([&] { return m_backend->_reduce_scatter_base(out, in); }, "reduce-scatter"),
             "reduce-scatter");
      if (!out.is_same(output)) output.copy_(out);
      return;
    }
    // Gloo has no reduce-scatter: the same sum by allreduce, of which this rank keeps its slice. Each element
    // is the same sum over the ranks as NCCL's (tests/backend/train/sharded_state_test.cpp).
    std::vector<torch::Tensor> sum{input.clone()};
    finish(launch([&] { return m_backend->allreduce(sum); }, "reduce-scatter"), "reduce-scatter");
    output.copy_(sum[0].narrow(0, m_rank * n, n));
  }

  void allgatherInto(const torch::Tensor& input, torch::Tensor& output) override {
    torch::NoGradGuard no_grad;
    const int64_t n = input.numel();
    if (output.numel() != n * m_size) throw std::logic_error("allgatherInto: output is not size() x input");
    torch::Tensor in = input.contiguous();
    if (usesNccl()) {
      torch::Tensor out = output.is_contiguous() ? output : output.contiguous();
      finish(launch([&] { return m_backend->_allgather_base(out, in); }, "all-gather"), "all-gather");
      if (!out.is_same(output)) output.copy_(out);
      return;
    }
    // Gloo writes each rank's part into the views of `output` given to it.
    std::vector<torch::Tensor> inputs{in};
    std::vector<std::vector<torch::Tensor>> outputs(1);
    for (int r = 0; r < m_size; ++r) outputs[0].push_back(output.narrow(0, r * n, n));
    finish(launch([&] { return m_backend->allgather(outputs, inputs); }, "all-gather"), "all-gather");
  }

  torch::Tensor allgather(const torch::Tensor& row) override {
    std::vector<torch::Tensor> input{row.to(m_device, torch::kFloat64).contiguous().reshape({-1})};
    std::vector<std::vector<torch::Tensor>> output(1);
    for (int r = 0; r < m_size; ++r) output[0].push_back(torch::empty_like(input[0]));
    finish(launch([&] { return m_backend->allgather(output, input); }, "allgather"), "allgather");
    return torch::stack(output[0]).to(torch::kCPU);
  }

 private:
  template <typename Launch>
  c10::intrusive_ptr<c10d::Work> launch(Launch&& start, const char* what) {
    try {
      return start();
    } catch (const std::exception& e) {
      throw CollectiveError(failureText(what, e));
    }
  }

  void finish(c10::intrusive_ptr<c10d::Work> work, const char* what) {
    try {
      work->wait();
    } catch (const std::exception& e) {
      throw CollectiveError(failureText(what, e));
    }
  }

  std::string failureText(const char* what, const std::exception& e) const {
    std::string text;
    if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
      text = c10_error->what_without_backtrace();
    } else {
      text = e.what();
    }
    // The rank that failed may be announcing it just now (its connections closed as it unwound): give it a
    // moment before reporting only our own side.
    std::string others = describeRankFailures(m_store, m_size, m_rank);
    for (int i = 0; i < 20 && others.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      others = describeRankFailures(m_store, m_size, m_rank);
    }
    std::ostringstream out;
    out << "Rank " << m_rank << " of " << m_size << ": " << what << " failed";
    if (!others.empty()) out << " because " << others;
    out << " (" << m_backend->getBackendName() << ": " << text << ")";
    out << "; collectives wait at most train.collective_timeout = " << secondsText(m_timeout) << ".";
    return out.str();
  }

  bool usesNccl() const { return m_device.is_cuda(); }

  c10::intrusive_ptr<compat::CollectiveBackend> m_backend;
  c10::intrusive_ptr<c10d::Store> m_store;
  int m_rank;
  int m_size;
  torch::Device m_device;
  std::chrono::milliseconds m_timeout;
};

}  // namespace

bool hasCollectivesFor(const torch::Device& device) {
  return device.is_cuda() ? ncclAvailable() : glooAvailable();
}

void announceRankFailure(const c10::intrusive_ptr<c10d::Store>& store, int rank, const std::string& reason) {
  if (!store) return;
  try {
    store->set(failedKey(rank), std::vector<uint8_t>(reason.begin(), reason.end()));
  } catch (...) {
    // The store itself may be gone (its host process died): the others will time out and say so.
  }
}

std::string describeRankFailures(const c10::intrusive_ptr<c10d::Store>& store, int size, int except_rank) {
  if (!store) return {};
  std::string out;
  try {
    for (int r = 0; r < size; ++r) {
      if (r == except_rank || !store->check({failedKey(r)})) continue;
      const std::vector<uint8_t> value = store->get(failedKey(r));
      if (!out.empty()) out += "; ";
      out += "rank " + std::to_string(r) + " failed: " + std::string(value.begin(), value.end());
    }
  } catch (...) {
    // The store is unreachable: its host (rank 0's process) is gone.
    if (out.empty() && except_rank != 0) out = "rank 0 is gone (its store does not answer)";
  }
  return out;
}

std::unique_ptr<RankGroup> joinRankGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                                         const torch::Device& device, const RankGroupOptions& options) {
  // Pre-flight: everyone announces itself, then waits for the rest; the ones that did not come are named.
  store->set(readyKey(rank), std::vector<uint8_t>{1});
  std::vector<std::string> keys;
  for (int r = 0; r < size; ++r) keys.push_back(readyKey(r));
  try {
    store->wait(keys, options.timeout);
  } catch (const std::exception& e) {
    std::string missing;
    try {
      for (int r = 0; r < size; ++r) {
        if (!store->check({readyKey(r)})) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      }
    } catch (...) {
    }
    throw CollectiveError("Rank " + std::to_string(rank) + " of " + std::to_string(size) + ": " +
                          (missing.empty() ? std::string("the other ranks") : "rank(s) " + missing) +
                          " did not join within train.collective_timeout = " + secondsText(options.timeout) +
                          ". Check that every process was started and can reach the store.");
  }
  c10::intrusive_ptr<compat::CollectiveBackend> backend;
  try {
    backend = device.is_cuda() ? makeNcclBackend(store, rank, size, options.timeout)
                               : makeGlooBackend(store, rank, size, options.timeout, options.gloo_address);
  } catch (const CollectiveError&) {
    throw;
  } catch (const std::exception& e) {
    throw CollectiveError("Rank " + std::to_string(rank) + " of " + std::to_string(size) +
                          ": the process group could not connect: " + e.what());
  }
  auto group = std::make_unique<ProcessGroupRanks>(backend, store, rank, size, device, options.timeout);
  // The links work both ways: one small allreduce across all ranks.
  torch::Tensor probe = torch::ones({1}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
  group->allreduceSum(probe);
  const double sum = probe.item<double>();
  if (sum != size) {
    throw CollectiveError("Rank " + std::to_string(rank) + ": the pre-flight allreduce gave " +
                          std::to_string(sum) + " instead of " + std::to_string(size) + ".");
  }
  return group;
}

}  // namespace wb
