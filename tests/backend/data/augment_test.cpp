// augmentBatch against per-sample references built with narrow() and flip(), drawing the offsets and flips
// in the order augment.cpp documents (crop rows, crop columns, flips).

#include <gtest/gtest.h>

#include "data/batch_loader.h"
#include "data/seed_mixing.h"
#include "workbench/errors.h"

namespace wb {
namespace {

torch::Tensor images(int64_t batch) {
  torch::manual_seed(1);
  return torch::randn({batch, 2, 5, 7});  // non-square, so rows and columns cannot be confused
}

TEST(AugmentBatch, NoCropNoFlipIsIdentity) {
  const torch::Tensor x = images(8);
  torch::Generator generator = makeCpuGenerator(0);
  EXPECT_TRUE(torch::equal(augmentBatch(x, AugmentConfig{true, 0, false}, generator), x));
  EXPECT_TRUE(torch::equal(augmentBatch(x, AugmentConfig{false, 3, false}, generator), x));
}

TEST(AugmentBatch, CropsMatchPerSampleReference) {
  const int64_t padding = 2, batch = 16;
  const torch::Tensor x = images(batch);
  torch::Generator generator = makeCpuGenerator(17);
  const torch::Tensor result = augmentBatch(x, AugmentConfig{true, padding, false}, generator);
  ASSERT_EQ(result.sizes(), x.sizes());

  torch::Generator replay = makeCpuGenerator(17);
  const torch::Tensor dy = torch::randint(0, 2 * padding + 1, {batch}, replay, torch::kLong);
  const torch::Tensor dx = torch::randint(0, 2 * padding + 1, {batch}, replay, torch::kLong);
  const int64_t distinct_offsets = torch::bincount(dy * (2 * padding + 1) + dx).gt(0).sum().item<int64_t>();
  EXPECT_GT(distinct_offsets, 5) << "offsets vary from sample to sample";
  const torch::Tensor padded = torch::constant_pad_nd(x, {padding, padding, padding, padding}, 0);
  for (int64_t i = 0; i < batch; ++i) {
    const torch::Tensor reference =
        padded[i].narrow(1, dy[i].item<int64_t>(), 5).narrow(2, dx[i].item<int64_t>(), 7);
    EXPECT_TRUE(torch::equal(result[i], reference)) << "sample " << i;
  }
}

TEST(AugmentBatch, FlipsMatchMask) {
  const int64_t batch = 64;
  const torch::Tensor x = images(batch);
  torch::Generator generator = makeCpuGenerator(5);
  const torch::Tensor result = augmentBatch(x, AugmentConfig{false, 2, true}, generator);
  torch::Generator replay = makeCpuGenerator(5);
  const torch::Tensor flipped = torch::rand({batch}, replay, torch::kFloat32).lt(0.5);
  const int64_t flips = flipped.sum().item<int64_t>();
  EXPECT_GT(flips, 10);
  EXPECT_LT(flips, 54);
  for (int64_t i = 0; i < batch; ++i) {
    const torch::Tensor expected = flipped[i].item<bool>() ? x[i].flip({2}) : x[i];
    EXPECT_TRUE(torch::equal(result[i], expected)) << "sample " << i;
  }
}

TEST(AugmentBatch, ReproducibleAndTypePreserving) {
  torch::manual_seed(2);
  const torch::Tensor pixels = torch::randint(1, 256, {12, 1, 6, 6}, torch::kUInt8);
  const AugmentConfig config{true, 3, true};
  torch::Generator a = makeCpuGenerator(9), b = makeCpuGenerator(9), c = makeCpuGenerator(10);
  const torch::Tensor first = augmentBatch(pixels, config, a);
  EXPECT_EQ(first.scalar_type(), torch::kUInt8);
  EXPECT_EQ(first.sizes(), pixels.sizes());
  EXPECT_TRUE(torch::equal(first, augmentBatch(pixels, config, b)));
  EXPECT_FALSE(torch::equal(first, augmentBatch(pixels, config, c)));
  // The source has no zeros; the zero padding shows up in the shifted crops.
  EXPECT_GT(first.eq(0).sum().item<int64_t>(), 0);
}

TEST(AugmentBatch, RejectsNonImages) {
  torch::Generator generator = makeCpuGenerator(0);
  EXPECT_THROW(augmentBatch(torch::zeros({4, 10}), AugmentConfig{}, generator), std::invalid_argument);
  EXPECT_THROW(augmentBatch(torch::zeros({4, 1, 3, 3}), AugmentConfig{true, -1, false}, generator),
               UserError);
}

}  // namespace
}  // namespace wb
