// BatchLoader: coverage of each epoch, reproducibility by (seed, epoch, batch), resuming mid-epoch,
// prefetching that changes nothing but timing, and errors from the prefetch thread.

#include "data/batch_loader.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "workbench/errors.h"

namespace wb {
namespace {

// Rows that carry their own index: x[i] = i (as an image [1, 4, 4] of value i + offset pattern), y[i] = i.
struct IndexedRows {
  torch::Tensor x, y;
  explicit IndexedRows(int64_t n) {
    y = torch::arange(n, torch::kLong);
    x = (y.to(torch::kFloat32).view({n, 1, 1, 1}) * 100 +
         torch::arange(16, torch::kFloat32).view({1, 1, 4, 4}));
  }
};

std::vector<Batch> epochBatches(BatchLoader& loader, int64_t epoch, int64_t first_batch = 0) {
  loader.startEpoch(epoch, first_batch);
  std::vector<Batch> batches;
  while (auto batch = loader.next()) batches.push_back(*batch);
  return batches;
}

BatchLoaderOptions options(int64_t batch_size, uint64_t seed, int64_t prefetch) {
  BatchLoaderOptions result;
  result.batch_size = batch_size;
  result.seed = seed;
  result.prefetch = prefetch;
  return result;
}

void expectSameBatches(const std::vector<Batch>& a, const std::vector<Batch>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_TRUE(torch::equal(a[i].x, b[i].x)) << "batch " << i;
    EXPECT_TRUE(torch::equal(a[i].y, b[i].y)) << "batch " << i;
  }
}

torch::Tensor epochOrder(const std::vector<Batch>& batches) {
  std::vector<torch::Tensor> labels;
  for (const auto& batch : batches) labels.push_back(batch.y);
  return torch::cat(labels);
}

TEST(BatchLoader, EachEpochCoversEveryRowOnce) {
  IndexedRows rows(103);
  BatchLoader loader(rows.x, rows.y, options(10, 7, 2));
  EXPECT_EQ(loader.samples(), 103);
  ASSERT_EQ(loader.batchesPerEpoch(), 11);
  for (int64_t epoch = 0; epoch < 3; ++epoch) {
    const std::vector<Batch> batches = epochBatches(loader, epoch);
    ASSERT_EQ(batches.size(), 11u);
    for (size_t i = 0; i < batches.size(); ++i) {
      EXPECT_EQ(batches[i].index, static_cast<int64_t>(i));
      EXPECT_EQ(batches[i].x.size(0), i < 10 ? 10 : 3);
      // Inputs travel with their labels.
      EXPECT_TRUE(torch::equal(batches[i].x, rows.x.index_select(0, batches[i].y)));
    }
    const torch::Tensor order = epochOrder(batches);
    EXPECT_TRUE(torch::equal(std::get<0>(order.sort()), rows.y));
    EXPECT_FALSE(torch::equal(order, rows.y)) << "shuffled";
  }
}

TEST(BatchLoader, OrderIsAFunctionOfSeedAndEpoch) {
  IndexedRows rows(64);
  BatchLoader a(rows.x, rows.y, options(8, 1, 2));
  BatchLoader b(rows.x, rows.y, options(8, 1, 0));
  BatchLoader other_seed(rows.x, rows.y, options(8, 2, 2));
  const std::vector<Batch> a3 = epochBatches(a, 3);
  epochBatches(b, 0);  // what ran before must not matter
  expectSameBatches(a3, epochBatches(b, 3));
  EXPECT_FALSE(torch::equal(epochOrder(a3), epochOrder(epochBatches(a, 4))));
  EXPECT_FALSE(torch::equal(epochOrder(a3), epochOrder(epochBatches(other_seed, 3))));
}

TEST(BatchLoader, ResumingMidEpochGivesTheSameBatches) {
  IndexedRows rows(50);
  BatchLoaderOptions with_augment = options(8, 9, 3);
  with_augment.augment = AugmentConfig{};
  BatchLoader fresh(rows.x, rows.y, with_augment);
  BatchLoader resumed(rows.x, rows.y, with_augment);
  const std::vector<Batch> all = epochBatches(fresh, 2);
  const std::vector<Batch> tail = epochBatches(resumed, 2, 4);
  expectSameBatches(std::vector<Batch>(all.begin() + 4, all.end()), tail);
  EXPECT_TRUE(epochBatches(resumed, 2, resumed.batchesPerEpoch()).empty());
  EXPECT_THROW(resumed.startEpoch(2, resumed.batchesPerEpoch() + 1), std::out_of_range);
}

TEST(BatchLoader, RestartCancelsPrefetchInFlight) {
  IndexedRows rows(200);
  BatchLoader loader(rows.x, rows.y, options(4, 5, 4));
  loader.startEpoch(0);
  ASSERT_TRUE(loader.next().has_value());
  ASSERT_TRUE(loader.next().has_value());
  // The thread has batches of epoch 0 queued or in progress; none of them may leak into epoch 1.
  const std::vector<Batch> restarted = epochBatches(loader, 1);
  BatchLoader reference(rows.x, rows.y, options(4, 5, 0));
  expectSameBatches(restarted, epochBatches(reference, 1));
}

TEST(BatchLoader, PrefetchChangesNothing) {
  torch::manual_seed(3);
  const torch::Tensor x = torch::randn({37, 3, 6, 6});
  const torch::Tensor y = torch::randint(0, 10, {37}, torch::kLong);
  BatchLoaderOptions synchronous = options(5, 4, 0);
  synchronous.augment = AugmentConfig{true, 2, true};
  BatchLoaderOptions prefetching = synchronous;
  prefetching.prefetch = 3;
  BatchLoader a(x, y, synchronous);
  BatchLoader b(x, y, prefetching);
  for (int64_t epoch = 0; epoch < 2; ++epoch)
    expectSameBatches(epochBatches(a, epoch), epochBatches(b, epoch));
  // The augmentation did something: batches differ from the plain rows.
  a.startEpoch(0);
  const Batch first = *a.next();
  EXPECT_FALSE(torch::equal(first.x, x.index_select(0, epochOrder({first}))));
}

TEST(BatchLoader, DropLastAndNoShuffle) {
  IndexedRows rows(103);
  BatchLoaderOptions ordered = options(10, 0, 2);
  ordered.shuffle = false;
  ordered.drop_last = true;
  BatchLoader loader(rows.x, rows.y, ordered);
  EXPECT_EQ(loader.batchesPerEpoch(), 10);
  const std::vector<Batch> batches = epochBatches(loader, 5);
  ASSERT_EQ(batches.size(), 10u);
  for (const auto& batch : batches) EXPECT_EQ(batch.x.size(0), 10);
  EXPECT_TRUE(torch::equal(epochOrder(batches), torch::arange(100, torch::kLong)));

  BatchLoaderOptions too_big = options(200, 0, 0);
  too_big.drop_last = true;
  BatchLoader empty(rows.x, rows.y, too_big);
  EXPECT_EQ(empty.batchesPerEpoch(), 0);
  EXPECT_TRUE(epochBatches(empty, 0).empty());
}

TEST(BatchLoader, BatchesAreCopiesNotViews) {
  IndexedRows rows(16);
  const torch::Tensor original = rows.x.clone();
  BatchLoader loader(rows.x, rows.y, options(16, 0, 1));
  loader.startEpoch(0);
  loader.next()->x.zero_();
  EXPECT_TRUE(torch::equal(rows.x, original));
}

// Targets are a task's, one row per sample of any shape (a mask, a token sequence), batched with their
// inputs.
TEST(BatchLoader, TargetsOfAnyShapeTravelWithTheirRows) {
  const IndexedRows rows(10);
  const torch::Tensor masks = rows.y.view({10, 1, 1}).expand({10, 2, 3}).contiguous();
  BatchLoader loader(rows.x, masks, options(4, 7, 2));
  int64_t seen = 0;
  for (const Batch& b : epochBatches(loader, 1)) {
    ASSERT_EQ(b.y.dim(), 3);
    for (int64_t i = 0; i < b.y.size(0); ++i) {
      const int64_t row = static_cast<int64_t>(b.x[i][0][0][0].item<float>() / 100);
      EXPECT_TRUE(b.y[i].eq(row).all().item<bool>()) << "row " << row;
      ++seen;
    }
  }
  EXPECT_EQ(seen, 10);
}

TEST(BatchLoader, MisuseIsReported) {
  IndexedRows rows(10);
  BatchLoader loader(rows.x, rows.y, options(4, 0, 1));
  EXPECT_THROW(loader.next(), std::logic_error);
  EXPECT_THROW(BatchLoader(rows.x, rows.y.narrow(0, 0, 9), options(4, 0, 1)), std::invalid_argument);
  EXPECT_THROW(BatchLoader(rows.x, rows.y, options(0, 0, 1)), UserError);
  BatchLoaderOptions table_augment = options(4, 0, 1);
  table_augment.augment = AugmentConfig{};
  EXPECT_THROW(BatchLoader(rows.x.view({10, 16}), rows.y, table_augment), UserError);
}

TEST(BatchLoader, StopsCleanlyMidEpoch) {
  IndexedRows rows(1000);
  for (int repeat = 0; repeat < 5; ++repeat) {
    BatchLoader loader(rows.x, rows.y, options(7, repeat, 4));
    loader.startEpoch(0);
    loader.next();
  }  // each destructor must join a thread that is busy or waiting
}

// The prefetch thread runs with one intra-op thread; at::set_num_threads also sets the count that threads
// started later adopt, which must stay the creating thread's.
TEST(BatchLoader, LeavesOtherThreadsThreadCountAlone) {
  const int original = at::get_num_threads();
  at::set_num_threads(3);  // not 1, so that a leaked 1 shows; Torch's default here may be 1 already
  {
    IndexedRows rows(16);
    BatchLoader loader(rows.x, rows.y, options(4, 0, 2));
    EXPECT_EQ(at::get_num_threads(), 3);
    int in_new_thread = 0;
    std::thread([&] { in_new_thread = at::get_num_threads(); }).join();
    EXPECT_EQ(in_new_thread, 3);
  }
  at::set_num_threads(original);
}

// On a machine with CUDA the batches arrive on the GPU; without it the failure to reach the device happens on
// the prefetch thread and must surface from next(), in order after the batches prepared before it.
TEST(BatchLoader, DeviceTransferAndPrefetchErrors) {
  IndexedRows rows(20);
  BatchLoaderOptions to_cuda = options(8, 0, 2);
  to_cuda.device = torch::Device(torch::kCUDA, 0);
  BatchLoader loader(rows.x, rows.y, to_cuda);
  loader.startEpoch(0);
  if (torch::cuda::is_available()) {
    const std::vector<Batch> batches = epochBatches(loader, 0);
    ASSERT_EQ(batches.size(), 3u);
    EXPECT_TRUE(batches[0].x.is_cuda());
    EXPECT_TRUE(torch::equal(batches[0].x.cpu(), rows.x.index_select(0, batches[0].y.cpu())));
  } else {
    EXPECT_THROW(loader.next(), c10::Error);
    EXPECT_THROW(loader.next(), c10::Error) << "the error stays until the next startEpoch";
    BatchLoaderOptions synchronous = to_cuda;
    synchronous.prefetch = 0;
    BatchLoader direct(rows.x, rows.y, synchronous);
    direct.startEpoch(0);
    EXPECT_THROW(direct.next(), c10::Error);
  }
}

}  // namespace
}  // namespace wb
