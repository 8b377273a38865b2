#include "data/image_batch.h"

#include <cstring>
#include <stdexcept>

namespace wb {

torch::Tensor collateImages(const std::vector<DecodedImage>& images, bool pinned) {
  if (images.empty()) throw std::invalid_argument("collateImages: no images");
  const DecodedImage& first = images.front();
  const int64_t n = static_cast<int64_t>(images.size());
  // HWC rows copied once into a batch, then made CHW by one permute-copy for the whole batch.
  torch::Tensor hwc = torch::empty({n, first.height, first.width, first.channels},
                                   torch::TensorOptions().dtype(torch::kUInt8));
  const size_t bytes = first.pixels.size();
  for (int64_t i = 0; i < n; ++i) {
    const DecodedImage& image = images[i];
    if (image.height != first.height || image.width != first.width || image.channels != first.channels ||
        image.pixels.size() != bytes) {
      throw std::invalid_argument("collateImages: images of different sizes in one batch");
    }
    std::memcpy(hwc.data_ptr<uint8_t>() + i * static_cast<int64_t>(bytes), image.pixels.data(), bytes);
  }
  torch::Tensor chw = torch::empty({n, first.channels, first.height, first.width},
                                   torch::TensorOptions().dtype(torch::kUInt8).pinned_memory(pinned));
  chw.copy_(hwc.permute({0, 3, 1, 2}));
  return chw;
}

torch::Tensor normalizeImageBatch(const torch::Tensor& uint8_batch, const std::vector<double>& mean,
                                  const std::vector<double>& std) {
  const int64_t channels = uint8_batch.size(1);
  if (static_cast<int64_t>(mean.size()) != channels || static_cast<int64_t>(std.size()) != channels) {
    throw std::invalid_argument("normalizeImageBatch: one mean and one std per channel");
  }
  const auto options = torch::TensorOptions().dtype(torch::kFloat32).device(uint8_batch.device());
  const torch::Tensor m = torch::tensor(std::vector<float>(mean.begin(), mean.end()), options).view({1, channels, 1, 1});
  const torch::Tensor s = torch::tensor(std::vector<float>(std.begin(), std.end()), options).view({1, channels, 1, 1});
  // torchvision: ToTensor's img.float().div(255), then Normalize's tensor.sub(mean).div(std).
  return uint8_batch.to(torch::kFloat32).div(255).sub(m).div(s);
}

}  // namespace wb
