#include "data/device_augment.h"

#include <algorithm>
#include <stdexcept>

namespace wb {

torch::Tensor resizedCropBatch(const torch::Tensor& images, const std::vector<CropBox>& boxes,
                               const std::vector<bool>& flips, int64_t size) {
  const int64_t batch = images.size(0);
  if (static_cast<int64_t>(boxes.size()) != batch || static_cast<int64_t>(flips.size()) != batch) {
    throw std::invalid_argument("resizedCropBatch: one box and one flip per image");
  }
  // Each output pixel's source, as F.interpolate on the box computes it: left + w (j + 0.5) / size - 0.5,
  // clamped to the box's first and last pixel (so the bilinear weights never reach outside the box), then in
  // grid_sample's units (align_corners=False: pixel centres at (2 x + 1) / W - 1). A flip reads the columns
  // in reverse.
  std::vector<float> xs, ys;
  xs.reserve(static_cast<size_t>(batch * size));
  ys.reserve(static_cast<size_t>(batch * size));
  const auto height = static_cast<double>(images.size(2));
  const auto width = static_cast<double>(images.size(3));
  for (int64_t i = 0; i < batch; ++i) {
    const CropBox& b = boxes[static_cast<size_t>(i)];
    const bool mirror = flips[static_cast<size_t>(i)];
    for (int64_t j = 0; j < size; ++j) {
      const auto along = static_cast<double>(mirror ? size - 1 - j : j);
      const double x =
          std::clamp(static_cast<double>(b.left) +
                         static_cast<double>(b.width) * (along + 0.5) / static_cast<double>(size) - 0.5,
                     static_cast<double>(b.left), static_cast<double>(b.left + b.width - 1));
      const double y = std::clamp(
          static_cast<double>(b.top) +
              static_cast<double>(b.height) * (static_cast<double>(j) + 0.5) / static_cast<double>(size) -
              0.5,
          static_cast<double>(b.top), static_cast<double>(b.top + b.height - 1));
      xs.push_back(static_cast<float>((2.0 * x + 1.0) / width - 1.0));
      ys.push_back(static_cast<float>((2.0 * y + 1.0) / height - 1.0));
    }
  }
  const auto options = torch::TensorOptions().dtype(images.scalar_type()).device(images.device());
  const torch::Tensor gx = torch::from_blob(xs.data(), {batch, 1, size}, torch::kFloat32).to(options);
  const torch::Tensor gy = torch::from_blob(ys.data(), {batch, size, 1}, torch::kFloat32).to(options);
  const torch::Tensor grid =
      torch::stack({gx.expand({batch, size, size}), gy.expand({batch, size, size})}, 3);
  return torch::nn::functional::grid_sample(images, grid,
                                            torch::nn::functional::GridSampleFuncOptions()
                                                .mode(torch::kBilinear)
                                                .padding_mode(torch::kBorder)
                                                .align_corners(false));
}

torch::Tensor flipSamples(const torch::Tensor& images, const std::vector<bool>& flips) {
  std::vector<int64_t> chosen;
  for (size_t i = 0; i < flips.size(); ++i) {
    if (flips[i]) chosen.push_back(static_cast<int64_t>(i));
  }
  if (chosen.empty()) return images;
  const torch::Tensor rows = torch::tensor(chosen, torch::kLong).to(images.device());
  torch::Tensor out = images.clone();
  out.index_copy_(0, rows, images.index_select(0, rows).flip({3}));
  return out;
}

}  // namespace wb
