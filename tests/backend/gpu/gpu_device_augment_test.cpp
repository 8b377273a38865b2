// data.augment_on "device" on CUDA against the same on the CPU: an image folder's uint8 batch, after its
// copy, cropped (RandomResizedCrop as one grid_sample), flipped and normalized on the GPU gives the CPU's
// numbers within float rounding, for training (seeded draws) and evaluation (normalization alone). Skips
// without CUDA; needs no image files (the staged batch is what the workers hand over).

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

#include "data/image_folder_source.h"

namespace wb {
namespace {

TEST(GpuDeviceAugment, CropFlipAndNormalizeOnCudaMatchTheCpu) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device (this build or machine has none)";
  ImageTransform transform;
  transform.resize = 40;
  transform.crop = 32;
  transform.random_resized_crop = true;
  transform.horizontal_flip = true;
  const Normalization norm{{0.48, 0.45, 0.40}, {0.23, 0.22, 0.22}};
  const ImageFolderSource source(std::make_shared<const std::vector<std::string>>(), {}, transform, norm, 0,
                                 /*on_device=*/true);
  torch::manual_seed(5);
  const torch::Tensor staged = torch::randint(0, 256, {16, 3, 40, 40}, torch::kUInt8);
  for (const uint64_t seed : {uint64_t{1}, uint64_t{77}}) {
    const torch::Tensor cpu = source.onDevice(staged, seed);
    const torch::Tensor cuda = source.onDevice(staged.to(torch::kCUDA), seed).cpu();
    ASSERT_EQ(cuda.sizes(), (std::vector<int64_t>{16, 3, 32, 32}));
    EXPECT_LT((cuda - cpu).abs().max().item<float>(), 1e-4) << "seed " << seed;
  }
  // Evaluation: the normalization alone, the same float operations.
  const torch::Tensor eval_cpu = source.onDevice(staged, std::nullopt);
  const torch::Tensor eval_cuda = source.onDevice(staged.to(torch::kCUDA), std::nullopt).cpu();
  EXPECT_LT((eval_cuda - eval_cpu).abs().max().item<float>(), 1e-6);
}

}  // namespace
}  // namespace wb
