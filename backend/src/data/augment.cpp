// Batch-wise image augmentation. Everything is drawn from the caller's generator in a fixed order
// (crop rows, crop columns, flips), so a batch's augmentation is a function of the generator's seed and a
// resumed run reproduces it.

#include <stdexcept>

#include "data/batch_loader.h"
#include "workbench/errors.h"

namespace wb {

namespace {

// Random crop of every sample at its own offset, without a per-sample loop: pad once, then gather the rows
// dy..dy+H-1 and the columns dx..dx+W-1 of each sample with two gathers. Padding is zero in whatever space
// the images are in; for normalized images that is the training mean, which is what the padding should be.
torch::Tensor randomCrop(const torch::Tensor& images, int64_t padding, torch::Generator& generator) {
  const int64_t batch = images.size(0), channels = images.size(1), height = images.size(2),
                width = images.size(3);
  const auto index_options = torch::TensorOptions().dtype(torch::kLong);
  // Drawn on the CPU (the generator is a CPU generator) and moved to the images' device.
  const torch::Tensor dy =
      torch::randint(0, 2 * padding + 1, {batch}, generator, index_options).to(images.device());
  const torch::Tensor dx =
      torch::randint(0, 2 * padding + 1, {batch}, generator, index_options).to(images.device());

  const torch::Tensor padded = at::constant_pad_nd(images, {padding, padding, padding, padding}, 0);
  const auto device_index = index_options.device(images.device());
  const torch::Tensor rows = dy.unsqueeze(1) + torch::arange(height, device_index).unsqueeze(0);  // [B, H]
  const torch::Tensor cols = dx.unsqueeze(1) + torch::arange(width, device_index).unsqueeze(0);   // [B, W]
  const torch::Tensor row_crop = padded.gather(
      2, rows.view({batch, 1, height, 1}).expand({batch, channels, height, width + 2 * padding}));
  return row_crop.gather(3, cols.view({batch, 1, 1, width}).expand({batch, channels, height, width}));
}

torch::Tensor randomHorizontalFlip(const torch::Tensor& images, torch::Generator& generator) {
  const torch::Tensor flip =
      torch::rand({images.size(0)}, generator, torch::TensorOptions().dtype(torch::kFloat32))
          .lt(0.5)
          .to(images.device())
          .view({images.size(0), 1, 1, 1});
  return torch::where(flip, images.flip({3}), images);
}

}  // namespace

torch::Tensor augmentBatch(const torch::Tensor& images, const AugmentConfig& config,
                           torch::Generator& generator) {
  if (images.dim() != 4) {
    throw std::invalid_argument("augmentBatch: expected images [B, C, H, W], got " +
                                std::to_string(images.dim()) + " dimensions");
  }
  if (config.crop_padding < 0) {
    throw UserError("data.augment.crop_padding must be 0 or more, got " +
                    std::to_string(config.crop_padding));
  }
  torch::Tensor result = images;
  if (config.random_crop && config.crop_padding > 0 && images.size(0) > 0) {
    result = randomCrop(result, config.crop_padding, generator);
  }
  if (config.horizontal_flip && images.size(0) > 0) result = randomHorizontalFlip(result, generator);
  return result;
}

}  // namespace wb
