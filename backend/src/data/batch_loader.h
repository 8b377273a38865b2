#pragma once
// Batches for one split: a per-epoch permutation seeded from (seed, epoch), one index_select per batch,
// batch-wise augmentation, and a background thread that prepares the next batches while the step runs.
// Position-addressable (epoch, batch index) so a resumed run sees exactly the batches it would have seen.

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "data/data_split.h"
#include "workbench/experiment.h"

namespace wb {

struct BatchLoaderOptions {
  int64_t batch_size = 128;
  bool shuffle = true;
  bool drop_last = false;
  uint64_t seed = 0;
  std::optional<AugmentConfig> augment;  // training only
  torch::Device device = torch::kCPU;    // batches are moved here (non-blocking from pinned memory on CUDA)
  bool pin_memory = true;                // CUDA: async copies from page-locked memory (train.pinned_memory)
  bool channels_last = false;            // images [B, C, H, W] handed out in channels_last (NHWC) layout
  int64_t prefetch = 2;                  // batches prepared ahead; 0 = synchronous
  // A source whose samples differ in length (texts) batched by similar length (data/length_buckets.h) when
  // shuffling; a source without lengths, or tensors in memory, are batched as drawn.
  bool bucket_by_length = false;
  // Threads that make batches (data.workers, PyTorch's num_workers): tensors in memory need one, a
  // SampleSource decodes with as many as it asks for (0 = in next(), on the caller's thread). 0 when prefetch
  // is 0.
  int64_t workers = 1;
  // Data parallel (torch's DistributedSampler): each epoch's permutation is padded by repeating its start to
  // a multiple of world_size, and this rank takes every world_size-th index starting at `rank`.
  int64_t rank = 0;
  int64_t world_size = 1;
};

class BatchLoader {
 public:
  BatchLoader(DataSplit split, BatchLoaderOptions options);
  BatchLoader(torch::Tensor x, torch::Tensor y, BatchLoaderOptions options);
  ~BatchLoader();  // stops and joins the workers
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  int64_t batchesPerEpoch() const;
  int64_t samples() const;  // per epoch, this rank's share
  // Starts (or restarts) an epoch at `first_batch`; cancels any prefetch in flight.
  void startEpoch(int64_t epoch, int64_t first_batch = 0);
  // The next batch of the epoch, or nullopt at its end. Exceptions from the prefetch thread surface here.
  std::optional<Batch> next();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// Batch-wise augmentation of images [B, C, H, W]: random crop after zero padding and horizontal flip, with
// offsets and flips drawn from `generator`. No per-sample loop.
torch::Tensor augmentBatch(const torch::Tensor& images, const AugmentConfig& config,
                           torch::Generator& generator);

}  // namespace wb
