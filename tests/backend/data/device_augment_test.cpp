// data.augment_on "device": the batched crop samples each box as F.interpolate would (bilinear, edges
// clamped), mirrored when asked; an image folder's evaluation batches and flip-only training batches are the
// workers' own, bit for bit; with RandomResizedCrop the batches are the same whatever the worker count.

#include "data/device_augment.h"

#include <gtest/gtest.h>

#include "data/batch_loader.h"
#include "data/dataset.h"
#include "data_test_support.h"
#include "support/image_folder.h"

namespace wb {
namespace {

TEST(DeviceAugment, BatchedCropIsInterpolateOfEachBox) {
  torch::manual_seed(3);
  const torch::Tensor images = torch::rand({3, 3, 20, 24}) * 255;
  const std::vector<CropBox> boxes = {{0, 0, 20, 24}, {3, 5, 9, 14}, {11, 2, 7, 7}};
  const std::vector<bool> flips = {false, true, false};
  const torch::Tensor ours = resizedCropBatch(images, boxes, flips, 10);
  ASSERT_EQ(ours.sizes(), (std::vector<int64_t>{3, 3, 10, 10}));
  for (size_t i = 0; i < boxes.size(); ++i) {
    const CropBox& b = boxes[i];
    const auto index = static_cast<int64_t>(i);
    torch::Tensor box = images.slice(0, index, index + 1)
                            .slice(2, b.top, b.top + b.height)
                            .slice(3, b.left, b.left + b.width);
    torch::Tensor expected =
        torch::nn::functional::interpolate(box, torch::nn::functional::InterpolateFuncOptions()
                                                    .size(std::vector<int64_t>{10, 10})
                                                    .mode(torch::kBilinear)
                                                    .align_corners(false));
    if (flips[i]) expected = expected.flip({3});
    EXPECT_LT((ours.slice(0, index, index + 1) - expected).abs().max().item<float>(), 1e-3) << "sample " << i;
  }
  const torch::Tensor flipped = flipSamples(images, {true, false, false});
  EXPECT_TRUE(torch::equal(flipped[0], images[0].flip({2})));
  EXPECT_TRUE(torch::equal(flipped[1], images[1]));
}

std::vector<Batch> epochOf(const DataSplit& split, const AugmentConfig& augment, int64_t epoch) {
  BatchLoaderOptions options;
  options.batch_size = 16;
  options.seed = 9;
  options.augment = augment;
  BatchLoader loader(split, options);
  loader.startEpoch(epoch);
  std::vector<Batch> batches;
  while (auto batch = loader.next()) batches.push_back(*batch);
  return batches;
}

TEST(DeviceAugment, ImageFolderOnTheDeviceMatchesTheWorkers) {
  test::TempDir dir;
  test::makeGarmentFolder(dir.file("garments"), 10);
  DataConfig config;
  config.dataset = DatasetName::ImageFolder;
  config.path = dir.file("garments");
  config.images.resize = 36;
  config.images.crop = 32;
  config.augment_enabled = true;
  config.augment.random_resized_crop = false;  // the flip alone: the same draws, the same pixels
  const Dataset workers = loadDataset(config, 4);
  config.augment_on = AugmentPlace::Device;
  const Dataset device = loadDataset(config, 4);
  EXPECT_NE(device.description.find("on the training device"), std::string::npos) << device.description;
  // Evaluation: Resize and CenterCrop on the workers, the normalization after the copy: the same numbers.
  EXPECT_TRUE(
      torch::equal(device.test.inputs(0, device.test.size()), workers.test.inputs(0, workers.test.size())));
  const std::vector<Batch> a = epochOf(workers.train, config.augment, 1);
  const std::vector<Batch> b = epochOf(device.train, config.augment, 1);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(torch::equal(a[i].x, b[i].x)) << "batch " << i;

  // RandomResizedCrop on the device: the model's shape, the same batches for any worker count, other crops
  // than the evaluation's.
  config.augment.random_resized_crop = true;
  std::vector<std::vector<Batch>> runs;
  for (const int count : {0, 3}) {
    config.workers = count;
    runs.push_back(epochOf(loadDataset(config, 4).train, config.augment, 2));
  }
  ASSERT_EQ(runs[0].size(), runs[1].size());
  for (size_t i = 0; i < runs[0].size(); ++i) {
    ASSERT_EQ(runs[0][i].x.sizes(), (std::vector<int64_t>{runs[0][i].x.size(0), 3, 32, 32}));
    EXPECT_TRUE(torch::equal(runs[0][i].x, runs[1][i].x)) << "batch " << i;
  }
  EXPECT_FALSE(torch::equal(runs[0][0].x, a[0].x));
  // Normalized with the training statistics: the crops' values stay in the normalized range's ballpark.
  EXPECT_LT(runs[0][0].x.mean().abs().item<float>(), 1.0);
}

}  // namespace
}  // namespace wb
