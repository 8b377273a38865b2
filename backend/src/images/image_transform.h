#pragma once
// The transforms an image folder's samples go through, as a PyTorch user writes them with torchvision:
//   evaluation: Resize(resize), CenterCrop(crop)                     (each only when its size is set)
//   training:   RandomResizedCrop(crop) and RandomHorizontalFlip()   (when data.augment asks for them)
// Every random draw comes from the generator passed in, seeded per sample by the loader, so a batch is the
// same whichever worker makes it. No Torch.

#include <cstdint>
#include <random>
#include <string>

#include "images/image_decoding.h"

namespace wb {

struct ImageTransform {
  int64_t resize = 0;  // the shorter side; 0 = as stored
  int64_t crop = 0;    // square crop; 0 = none
  int channels = 3;
  bool random_resized_crop = false;  // training: RandomResizedCrop(crop) in place of Resize + CenterCrop
  bool horizontal_flip = false;      // training: flipped with probability 1/2
  bool jpeg_draft =
      false;  // JPEGs decoded at a reduced scale that still covers max(resize, crop) (decodeImage)
};

// The file decoded for these transforms: `channels`, and drafted when jpeg_draft asks for it.
DecodedImage readImageFor(const std::string& file, const ImageTransform& transform);

DecodedImage evaluationTransform(DecodedImage image, const ImageTransform& transform);

// RandomResizedCrop needs a crop size: without one the evaluation transform is used, then the flip.
DecodedImage trainingTransform(DecodedImage image, const ImageTransform& transform, std::mt19937_64& random);

// readImageFor then trainingTransform, the same draws in the same order and the same pixels, with
// RandomResizedCrop's box drawn from the file's size before decoding: a JPEG is decoded only down to the
// box's bottom row (on average a sixth of the decoding saved; what lies below is never used).
DecodedImage readForTraining(const std::string& file, const ImageTransform& transform,
                             std::mt19937_64& random);

}  // namespace wb
