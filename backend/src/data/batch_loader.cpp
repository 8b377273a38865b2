// Batches by position: batch k of epoch e is rows [k*B, (k+1)*B) of a permutation drawn from a generator
// seeded with seed * 1000003 + e (mixed with the seed's EpochOrder stream, see seed_mixing.h), augmented with
// a generator seeded from (seed, e, k). Nothing depends on what was drawn before, so a run resumed at (e, k)
// sees exactly the batches it would have seen.
//
// A single prefetch thread prepares batches ahead of the consumer into a bounded queue. startEpoch bumps a
// generation counter: whatever the thread was preparing for an older generation is dropped when it finishes.

#include "data/batch_loader.h"

#include <ATen/Config.h>
#include <ATen/Parallel.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "data/seed_mixing.h"
#include "workbench/errors.h"

namespace wb {

namespace {

uint64_t epochOrderSeed(uint64_t seed, int64_t epoch) {
  return mixSeed(streamSeed(seed, SeedStream::EpochOrder), seed * 1000003ULL + static_cast<uint64_t>(epoch));
}

uint64_t augmentationSeed(uint64_t seed, int64_t epoch, int64_t batch) {
  return mixSeed(mixSeed(streamSeed(seed, SeedStream::Augmentation), static_cast<uint64_t>(epoch)),
                 static_cast<uint64_t>(batch));
}

// The prefetch thread's own work (one index_select, a few small ops) must not open a second OpenMP team
// beside the training thread's: on two cores that halves the step's speed. at::set_num_threads also stores
// a process-wide value that threads starting later adopt on their first parallel op, so the caller restores
// its own count once the worker has taken 1 (see BatchLoader's constructor). With the native thread pool
// the count is process-wide and cannot be set per thread: leave it alone there.
void useOneIntraOpThreadHere() {
#if AT_PARALLEL_OPENMP
  at::get_num_threads();  // runs this thread's lazy init now, so it cannot later overwrite the 1
  at::set_num_threads(1);
#endif
}

}  // namespace

struct BatchLoader::Impl {
  torch::Tensor x, y;
  BatchLoaderOptions options;
  int64_t rows = 0;     // in the split
  int64_t samples = 0;  // this rank's share of an epoch
  int64_t batches = 0;

  std::mutex mutex;
  std::condition_variable work_wanted;  // the thread waits here for room in the queue or a new epoch
  std::condition_variable batch_ready;  // next() waits here
  bool stopping = false;
  bool epoch_started = false;
  bool worker_configured = false;
  uint64_t generation = 0;
  int64_t epoch = 0;
  torch::Tensor order;  // this epoch's permutation of the rows, on x's device
  int64_t next_to_return = 0;
  int64_t next_to_prepare = 0;
  std::deque<Batch> ready;
  std::exception_ptr failure;
  std::thread worker;

  Batch makeBatch(const torch::Tensor& epoch_order, int64_t for_epoch, int64_t index) const {
    torch::NoGradGuard no_grad;
    const int64_t start = index * options.batch_size;
    const int64_t count = std::min(options.batch_size, samples - start);
    const torch::Tensor rows = epoch_order.narrow(0, start, count);
    Batch batch;
    batch.index = index;
    batch.x = x.index_select(0, rows);
    batch.y = y.index_select(0, rows);
    if (options.augment) {
      // Each rank augments its own batches differently (the rank joins the batch index in the seed).
      const int64_t stream = index * options.world_size + options.rank;
      torch::Generator generator = makeCpuGenerator(augmentationSeed(options.seed, for_epoch, stream));
      batch.x = augmentBatch(batch.x, *options.augment, generator);
    }
    if (options.device != batch.x.device()) {
      // Pinned host memory lets the copy run asynchronously and overlap the step on the GPU.
      const bool pin = options.pin_memory && options.device.is_cuda() && batch.x.device().is_cpu();
      if (pin) {
        batch.x = batch.x.pin_memory();
        batch.y = batch.y.pin_memory();
      }
      batch.x = batch.x.to(options.device, /*non_blocking=*/pin);
      batch.y = batch.y.to(options.device, /*non_blocking=*/pin);
    }
    // On the prefetch thread, after the copy: the step receives the layout its channels_last weights want.
    if (options.channels_last && batch.x.dim() == 4) {
      batch.x = batch.x.contiguous(torch::MemoryFormat::ChannelsLast);
    }
    return batch;
  }

  void runWorker(const std::shared_ptr<c10::ThreadLocalDebugInfo>& debug_info) {
    // The creating thread's c10 debug info: allocations here count where the step's do (the batch-size
    // finder's HostAllocationMeter, torch.profiler's memory profiling).
    c10::DebugInfoGuard inherited(debug_info);
    useOneIntraOpThreadHere();
    torch::NoGradGuard no_grad;
    std::unique_lock<std::mutex> lock(mutex);
    worker_configured = true;
    batch_ready.notify_all();
    while (true) {
      work_wanted.wait(lock, [&] {
        return stopping || (epoch_started && !failure && next_to_prepare < batches &&
                            next_to_prepare - next_to_return < options.prefetch);
      });
      if (stopping) return;
      const uint64_t for_generation = generation;
      const int64_t for_epoch = epoch;
      const int64_t index = next_to_prepare++;
      const torch::Tensor epoch_order = order;
      lock.unlock();
      Batch batch;
      std::exception_ptr error;
      try {
        batch = makeBatch(epoch_order, for_epoch, index);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (for_generation != generation) continue;  // startEpoch ran meanwhile: this batch is stale
      if (error) {
        failure = error;
      } else {
        ready.push_back(std::move(batch));
      }
      batch_ready.notify_all();
    }
  }
};

BatchLoader::BatchLoader(torch::Tensor x, torch::Tensor y, BatchLoaderOptions options)
    : m_impl(std::make_unique<Impl>()) {
  if (x.dim() < 1 || y.dim() != 1 || x.size(0) != y.size(0)) {
    throw std::invalid_argument("BatchLoader: inputs and labels must have the same number of rows");
  }
  if (options.batch_size < 1) {
    throw UserError("train.batch_size must be at least 1, got " + std::to_string(options.batch_size));
  }
  if (options.prefetch < 0) throw std::invalid_argument("BatchLoader: prefetch must not be negative");
  if (options.augment && x.dim() != 4) {
    throw UserError("data.augment_enabled is on but the data are not images [N, C, H, W]",
                    "turn data.augment_enabled off for tables");
  }
  Impl& impl = *m_impl;
  impl.x = std::move(x);
  impl.y = std::move(y);
  impl.options = std::move(options);
  if (impl.options.world_size < 1 || impl.options.rank < 0 || impl.options.rank >= impl.options.world_size) {
    throw std::invalid_argument("BatchLoader: rank must be in [0, world_size)");
  }
  impl.rows = impl.x.size(0);
  impl.samples = (impl.rows + impl.options.world_size - 1) / impl.options.world_size;
  impl.batches = impl.options.drop_last
                     ? impl.samples / impl.options.batch_size
                     : (impl.samples + impl.options.batch_size - 1) / impl.options.batch_size;
  if (impl.options.prefetch > 0) {
    // See useOneIntraOpThreadHere: take this thread's count now, let the worker set 1, then put the
    // process-wide value back to this thread's so threads started later are not left with one.
    const int caller_threads = at::get_num_threads();
    impl.worker = std::thread([&impl, debug_info = c10::ThreadLocalDebugInfo::current()] { impl.runWorker(debug_info); });
    std::unique_lock<std::mutex> lock(impl.mutex);
    impl.batch_ready.wait(lock, [&] { return impl.worker_configured; });
    lock.unlock();
#if AT_PARALLEL_OPENMP
    at::set_num_threads(caller_threads);
#else
    (void)caller_threads;
#endif
  }
}

BatchLoader::~BatchLoader() {
  if (!m_impl->worker.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(m_impl->mutex);
    m_impl->stopping = true;
  }
  m_impl->work_wanted.notify_all();
  m_impl->worker.join();
}

int64_t BatchLoader::batchesPerEpoch() const {
  return m_impl->batches;
}

int64_t BatchLoader::samples() const {
  return m_impl->samples;
}

void BatchLoader::startEpoch(int64_t epoch, int64_t first_batch) {
  Impl& impl = *m_impl;
  if (epoch < 0 || first_batch < 0 || first_batch > impl.batches) {
    throw std::out_of_range("BatchLoader::startEpoch: epoch " + std::to_string(epoch) + ", batch " +
                            std::to_string(first_batch) + " of " + std::to_string(impl.batches));
  }
  torch::Tensor order;
  if (impl.options.shuffle) {
    torch::Generator generator = makeCpuGenerator(epochOrderSeed(impl.options.seed, epoch));
    order = torch::randperm(impl.rows, generator, torch::kLong);
  } else {
    order = torch::arange(impl.rows, torch::kLong);
  }
  const int64_t world = impl.options.world_size;
  if (world > 1) {
    const int64_t total = impl.samples * world;
    while (order.size(0) < total) {
      order = torch::cat({order, order.narrow(0, 0, std::min(order.size(0), total - order.size(0)))});
    }
    order = order.slice(0, impl.options.rank, total, world).contiguous();
  }
  order = order.to(impl.x.device());
  {
    std::lock_guard<std::mutex> lock(impl.mutex);
    ++impl.generation;
    impl.epoch_started = true;
    impl.epoch = epoch;
    impl.order = order;
    impl.next_to_return = first_batch;
    impl.next_to_prepare = first_batch;
    impl.ready.clear();
    impl.failure = nullptr;
  }
  impl.work_wanted.notify_all();
}

std::optional<Batch> BatchLoader::next() {
  Impl& impl = *m_impl;
  std::unique_lock<std::mutex> lock(impl.mutex);
  if (!impl.epoch_started) throw std::logic_error("BatchLoader::next called before startEpoch");
  if (impl.next_to_return >= impl.batches) return std::nullopt;
  if (impl.options.prefetch == 0) {
    Batch batch = impl.makeBatch(impl.order, impl.epoch, impl.next_to_return);
    ++impl.next_to_return;  // only once made, so a failed batch is tried again rather than skipped
    return batch;
  }
  impl.batch_ready.wait(lock, [&] { return !impl.ready.empty() || impl.failure; });
  // Batches finished before a failure are still handed out in order; the failure comes when they run out.
  if (impl.ready.empty()) std::rethrow_exception(impl.failure);
  Batch batch = std::move(impl.ready.front());
  impl.ready.pop_front();
  ++impl.next_to_return;
  lock.unlock();
  impl.work_wanted.notify_all();
  return batch;
}

}  // namespace wb
