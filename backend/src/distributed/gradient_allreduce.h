#pragma once
// DistributedDataParallel's gradient averaging, with c10d's collectives and our own bucketing (c10d's Reducer
// is internal and not usable from Debian's headers). Parameters are grouped, in reverse order of
// registration (roughly the order backward produces their gradients), into buckets of about
// train.bucket_mb; a hook on each parameter's gradient accumulator marks it ready, and a bucket whose
// gradients are all ready is copied into one flat buffer and its allreduce launched at once — while backward
// goes on computing the gradients of earlier layers. Buckets are launched in the same order on every rank.
// finish() waits for them, divides by the number of ranks and writes the averages back into .grad.

#include <torch/torch.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "distributed/device_collective_clock.h"
#include "distributed/rank_group.h"
#include "torch_compat.h"

namespace wb {

class GradientAllreduce {
 public:
  GradientAllreduce(const std::vector<torch::Tensor>& parameters, RankGroup& group, double bucket_mb);
  ~GradientAllreduce();  // removes the hooks
  GradientAllreduce(const GradientAllreduce&) = delete;
  GradientAllreduce& operator=(const GradientAllreduce&) = delete;

  // Before each backward: `completes` when this backward completes the step's gradients (the last of
  // train.grad_accum micro-batches); accumulation steps communicate nothing.
  void beginBackward(bool completes);
  // After the last backward of a step: waits for every bucket and leaves the averaged gradients in .grad.
  void finish();

  // Communication time since the last call, for the metrics: `busy_ms` the time the collectives ran (one
  // after another on the communication thread, or on the GPU's NCCL stream: device_collective_clock.h),
  // `hidden_ms` the part of it before backward had finished. A GPU's steps count once their events are done.
  struct Times {
    double busy_ms = 0;
    double hidden_ms = 0;
    int64_t steps = 0;
  };
  Times takeTimes();
  size_t bucketCount() const { return m_buckets.size(); }

 private:
  using Clock = std::chrono::steady_clock;
  struct Bucket {
    std::vector<size_t> parameters;  // indices into m_parameters
    std::vector<int64_t> offsets;    // of each parameter's gradient in the flat buffer
    int64_t numel = 0;
    torch::Tensor buffer;
    size_t pending = 0;  // gradients not yet ready in this step
    bool launched = false;
    std::function<void()> wait;
    Clock::time_point launched_at;
    std::shared_ptr<CollectiveTiming> timing;  // when it was done (host) or how long it ran (device)
  };

  void addHostTimes(Clock::time_point backward_end);
  void onGradientReady(size_t parameter);
  void launchReadyBuckets();
  void launch(Bucket& bucket);

  std::vector<torch::Tensor> m_parameters;
  std::vector<size_t> m_bucket_of;  // parameter index -> bucket
  std::vector<bool> m_ready;
  std::vector<Bucket> m_buckets;
  size_t m_next_launch = 0;
  bool m_active = false;  // inside a backward that completes the gradients
  RankGroup& m_group;
  std::vector<std::pair<compat::GradAccumulatorPtr, uintptr_t>> m_hooks;
  Times m_times;
  DeviceCollectiveClock m_device_clock;  // NCCL's collectives, timed on the GPU
};

}  // namespace wb
