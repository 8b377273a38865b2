#pragma once
// torchvision's training augmentation for image folders: RandomResizedCrop (the crop's box chosen as its
// get_params chooses it, from our seeded generator instead of torch's, so a run repeats for its seed whatever
// the worker count; the crop then resized exactly as F.resized_crop does on a PIL image) and the horizontal
// flip.

#include <cstdint>
#include <random>

#include "images/image_decoding.h"

namespace wb {

struct CropBox {
  int64_t top = 0;
  int64_t left = 0;
  int64_t height = 0;
  int64_t width = 0;
};

struct ResizedCropRange {
  double min_scale = 0.08;  // of the image's area (torchvision's scale=(0.08, 1.0))
  double max_scale = 1.0;
  double min_ratio = 3.0 / 4.0;  // width / height (ratio=(3/4, 4/3)), drawn on a log scale
  double max_ratio = 4.0 / 3.0;
};

// RandomResizedCrop.get_params: ten tries at a box of a random area share and aspect ratio that fits, placed
// at random; else the central crop of the largest box within the ratio range.
CropBox randomResizedCropBox(int64_t height, int64_t width, const ResizedCropRange& range,
                             std::mt19937_64& random);

// F.resized_crop on a PIL image: the box cut out (the box lies inside the image), then Pillow's bilinear
// resize.
DecodedImage resizedCrop(const DecodedImage& image, const CropBox& box, int64_t height, int64_t width);

void flipHorizontally(DecodedImage& image);

}  // namespace wb
