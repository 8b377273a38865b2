#include "images/image_augment.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "images/image_resize.h"

namespace wb {

CropBox randomResizedCropBox(int64_t height, int64_t width, const ResizedCropRange& range,
                             std::mt19937_64& random) {
  const double area = static_cast<double>(height * width);
  std::uniform_real_distribution<double> scale(range.min_scale, range.max_scale);
  std::uniform_real_distribution<double> log_ratio(std::log(range.min_ratio), std::log(range.max_ratio));
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target_area = area * scale(random);
    const double aspect = std::exp(log_ratio(random));
    // Python's round(): halves to even.
    const auto w = static_cast<int64_t>(std::nearbyint(std::sqrt(target_area * aspect)));
    const auto h = static_cast<int64_t>(std::nearbyint(std::sqrt(target_area / aspect)));
    if (w > 0 && w <= width && h > 0 && h <= height) {
      const int64_t top = std::uniform_int_distribution<int64_t>(0, height - h)(random);
      const int64_t left = std::uniform_int_distribution<int64_t>(0, width - w)(random);
      return {top, left, h, w};
    }
  }
  const double in_ratio = static_cast<double>(width) / static_cast<double>(height);
  int64_t w = width, h = height;
  if (in_ratio < range.min_ratio) {
    h = static_cast<int64_t>(std::nearbyint(static_cast<double>(w) / range.min_ratio));
  } else if (in_ratio > range.max_ratio) {
    w = static_cast<int64_t>(std::nearbyint(static_cast<double>(h) * range.max_ratio));
  }
  return {(height - h) / 2, (width - w) / 2, h, w};
}

DecodedImage resizedCrop(const DecodedImage& image, const CropBox& box, int64_t height, int64_t width) {
  if (box.top < 0 || box.left < 0 || box.height <= 0 || box.width <= 0 ||
      box.top + box.height > image.height || box.left + box.width > image.width) {
    throw std::invalid_argument("resizedCrop: the box is not inside the image");
  }
  DecodedImage crop{box.height, box.width, image.channels,
                    PixelBytes(static_cast<size_t>(box.height * box.width * image.channels))};
  const int64_t line = box.width * image.channels;
  for (int64_t y = 0; y < box.height; ++y) {
    std::copy_n(&image.pixels[static_cast<size_t>(((box.top + y) * image.width + box.left) * image.channels)],
                line, &crop.pixels[static_cast<size_t>(y * line)]);
  }
  return resizeBilinear(crop, width, height);
}

void flipHorizontally(DecodedImage& image) {
  const int64_t ch = image.channels;
  for (int64_t y = 0; y < image.height; ++y) {
    uint8_t* row = &image.pixels[static_cast<size_t>(y * image.width * ch)];
    for (int64_t x = 0; x < image.width / 2; ++x) {
      std::swap_ranges(row + x * ch, row + (x + 1) * ch, row + (image.width - 1 - x) * ch);
    }
  }
}

}  // namespace wb
