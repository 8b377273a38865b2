// Batches by position: batch k of epoch e is rows [k*B, (k+1)*B) of a permutation drawn from a generator
// seeded with seed * 1000003 + e (mixed with the seed's EpochOrder stream, see seed_mixing.h), augmented with
// a generator seeded from (seed, e, k). Nothing depends on what was drawn before, so a run resumed at (e, k)
// sees exactly the batches it would have seen.
//
// Workers prepare batches ahead of the consumer in an OrderedWorkQueue (at most `prefetch` in flight, handed
// out in batch order whatever the worker count): one for tensors in memory, the source's data.workers for
// files. startEpoch restarts the queue: whatever a worker was preparing for the old epoch is dropped when it
// finishes.

#include "data/batch_loader.h"

#include <ATen/Config.h>
#include <ATen/Parallel.h>
#include <c10/util/ThreadLocalDebugInfo.h>

#include <functional>
#include <stdexcept>

#include "data/length_buckets.h"
#include "data/ordered_work_queue.h"
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
  DataSplit split;
  BatchLoaderOptions options;
  int64_t rows = 0;     // in the split
  int64_t samples = 0;  // this rank's share of an epoch
  int64_t batches = 0;
  std::shared_ptr<c10::ThreadLocalDebugInfo> debug_info;  // the creating thread's (see runJob)

  bool epoch_started = false;
  int64_t epoch = 0;
  torch::Tensor order;           // this epoch's permutation of the rows, on x's device (the CPU for a source)
  std::vector<int64_t> lengths;  // the source's sample lengths when batches are bucketed by length
  std::unique_ptr<OrderedWorkQueue<Batch>> queue;

  Batch makeBatch(const torch::Tensor& epoch_order, int64_t for_epoch, int64_t index) const {
    torch::NoGradGuard no_grad;
    const int64_t start = index * options.batch_size;
    const int64_t count = std::min(options.batch_size, samples - start);
    const torch::Tensor rows = epoch_order.narrow(0, start, count);
    // Each rank augments its own batches differently (the rank joins the batch index in the seed).
    const uint64_t augment_seed =
        augmentationSeed(options.seed, for_epoch, index * options.world_size + options.rank);
    const bool pin = options.pin_memory && options.device.is_cuda();
    Batch batch;
    batch.index = index;
    batch.y = split.y.index_select(0, rows.to(split.y.device()));
    if (split.source) {
      const torch::Tensor cpu_rows = rows.to(torch::kCPU).contiguous();
      const std::vector<int64_t> wanted(cpu_rows.data_ptr<int64_t>(), cpu_rows.data_ptr<int64_t>() + count);
      batch.x = split.source->inputs(
          wanted, options.augment ? std::optional<uint64_t>(augment_seed) : std::nullopt, pin);
    } else {
      batch.x = split.x.index_select(0, rows);
      if (options.augment) {
        torch::Generator generator = makeCpuGenerator(augment_seed);
        batch.x = augmentBatch(batch.x, *options.augment, generator);
      }
    }
    if (options.device != batch.x.device()) {
      // Pinned host memory lets the copy run asynchronously and overlap the step on the GPU.
      const bool pinned = pin && batch.x.device().is_cpu();
      if (pinned) {
        if (!batch.x.is_pinned()) batch.x = batch.x.pin_memory();
        batch.y = batch.y.pin_memory();
      }
      batch.x = batch.x.to(options.device, /*non_blocking=*/pinned);
      batch.y = batch.y.to(options.device, /*non_blocking=*/pinned);
    }
    // A source's transforms that run on the training device (data.augment_on "device"), after the copy.
    if (split.source) {
      batch.x = split.source->onDevice(
          batch.x, options.augment ? std::optional<uint64_t>(augment_seed) : std::nullopt);
    }
    // On the worker, after the copy: the step receives the layout its channels_last weights want.
    if (options.channels_last && batch.x.dim() == 4) {
      batch.x = batch.x.contiguous(torch::MemoryFormat::ChannelsLast);
    }
    return batch;
  }

  // The jobs of one epoch from `first_batch` on, made on the workers (or in next() without any).
  std::function<std::optional<OrderedWorkQueue<Batch>::Job>()> epochJobs(int64_t first_batch) {
    auto next_index = std::make_shared<int64_t>(first_batch);
    return [this, next_index, epoch_order = order,
            for_epoch = epoch]() -> std::optional<OrderedWorkQueue<Batch>::Job> {
      if (*next_index >= batches) return std::nullopt;
      const int64_t index = (*next_index)++;
      return OrderedWorkQueue<Batch>::Job([this, epoch_order, for_epoch, index] {
        // The creating thread's c10 debug info: allocations here count where the step's do (the batch-size
        // finder's HostAllocationMeter, torch.profiler's memory profiling).
        c10::DebugInfoGuard inherited(debug_info);
        return makeBatch(epoch_order, for_epoch, index);
      });
    };
  }
};

BatchLoader::BatchLoader(torch::Tensor x, torch::Tensor y, BatchLoaderOptions options)
    : BatchLoader(DataSplit{std::move(x), std::move(y), nullptr}, std::move(options)) {}

BatchLoader::BatchLoader(DataSplit split, BatchLoaderOptions options) : m_impl(std::make_unique<Impl>()) {
  const bool in_memory = split.inMemory();
  // Targets are whatever the task learns, one row per sample: a class index, a mask, a token sequence.
  if (!split.y.defined() || split.y.dim() < 1 ||
      (in_memory && (split.x.dim() < 1 || split.x.size(0) != split.y.size(0))) ||
      (!in_memory && split.source->size() != split.y.size(0))) {
    throw std::invalid_argument("BatchLoader: inputs and targets must have the same number of rows");
  }
  if (options.batch_size < 1) {
    throw UserError("train.batch_size must be at least 1, got " + std::to_string(options.batch_size));
  }
  if (options.prefetch < 0) throw std::invalid_argument("BatchLoader: prefetch must not be negative");
  if (options.augment && in_memory && split.x.dim() != 4) {
    throw UserError("data.augment_enabled is on but the data are not images [N, C, H, W]",
                    "turn data.augment_enabled off for tables");
  }
  Impl& impl = *m_impl;
  impl.split = std::move(split);
  impl.options = std::move(options);
  if (impl.options.world_size < 1 || impl.options.rank < 0 || impl.options.rank >= impl.options.world_size) {
    throw std::invalid_argument("BatchLoader: rank must be in [0, world_size)");
  }
  impl.rows = impl.split.size();
  if (impl.options.bucket_by_length && impl.split.source) impl.lengths = impl.split.source->sampleLengths();
  impl.samples = (impl.rows + impl.options.world_size - 1) / impl.options.world_size;
  impl.batches = impl.options.drop_last
                     ? impl.samples / impl.options.batch_size
                     : (impl.samples + impl.options.batch_size - 1) / impl.options.batch_size;
  impl.debug_info = c10::ThreadLocalDebugInfo::current();
  const int64_t wanted_workers =
      in_memory ? std::min<int64_t>(1, impl.options.workers) : impl.split.source->workers();
  const int workers = impl.options.prefetch > 0 ? static_cast<int>(std::max<int64_t>(0, wanted_workers)) : 0;
  // See useOneIntraOpThreadHere: take this thread's count now, let the workers set 1, then put the
  // process-wide value back to this thread's so threads started later are not left with one.
  const int caller_threads = at::get_num_threads();
  impl.queue = std::make_unique<OrderedWorkQueue<Batch>>(
      workers, static_cast<int>(std::max<int64_t>(1, impl.options.prefetch)),
      []() -> std::optional<OrderedWorkQueue<Batch>::Job> { return std::nullopt; }, useOneIntraOpThreadHere);
#if AT_PARALLEL_OPENMP
  if (workers > 0) at::set_num_threads(caller_threads);
#else
  (void)caller_threads;
#endif
}

BatchLoader::~BatchLoader() = default;  // the queue joins its workers

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
  if (impl.options.shuffle && !impl.lengths.empty()) {
    const std::vector<int64_t> shuffled(order.data_ptr<int64_t>(), order.data_ptr<int64_t>() + order.size(0));
    // The bucketed order is drawn from the epoch's seed too: a resumed run sees the same batches.
    const std::vector<int64_t> bucketed =
        lengthBucketedOrder(shuffled, impl.lengths, impl.options.batch_size,
                            epochOrderSeed(impl.options.seed, epoch) ^ 0x6c656e67ULL);
    order = torch::tensor(bucketed, torch::kLong);
  }
  impl.order = order.to(impl.split.y.device());
  impl.epoch = epoch;
  impl.epoch_started = true;
  impl.queue->restart(impl.epochJobs(first_batch));
}

std::optional<Batch> BatchLoader::next() {
  Impl& impl = *m_impl;
  if (!impl.epoch_started) throw std::logic_error("BatchLoader::next called before startEpoch");
  // Batches finished before a failure are still handed out in order; the failure comes at its batch's turn.
  return impl.queue->take();
}

}  // namespace wb
