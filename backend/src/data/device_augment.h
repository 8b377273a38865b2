#pragma once
// data.augment_on "device": the training augmentation of an image folder run on the training device, batched,
// after the uint8 batch's copy (a quarter of float's bytes): RandomResizedCrop as one grid_sample over the
// batch (bilinear, edges clamped: F.interpolate's sampling of each box, without Pillow's antialiasing), the
// flip folded into the same grid, then ToTensor's /255 and Normalize. On the CPU device in the tests, on a
// GPU in training.

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "images/image_augment.h"

namespace wb {

// `images`: float [B, C, H, W]; boxes[i] lies inside image i; flips[i] mirrors the crop left to right.
// Returns [B, C, size, size], each crop sampled as F.interpolate(box, (size, size), mode="bilinear",
// align_corners=False).
torch::Tensor resizedCropBatch(const torch::Tensor& images, const std::vector<CropBox>& boxes,
                               const std::vector<bool>& flips, int64_t size);

// Mirrors the samples i with flips[i] (uint8 or float [B, C, H, W]), on the batch's device.
torch::Tensor flipSamples(const torch::Tensor& images, const std::vector<bool>& flips);

}  // namespace wb
