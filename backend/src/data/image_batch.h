#pragma once
// Decoded images into the tensors a step takes, as torchvision's ToTensor and Normalize make them: collated into
// one uint8 batch [N, C, H, W] (the form that travels, pinned, to the device: a quarter of float's bytes), then
// converted to float, divided by 255 and normalized with the training split's per-channel mean and std — on the
// worker or on the training device (data.augment_on), with the same operations in the same order, so that the
// numbers are torchvision's.

#include <torch/torch.h>

#include <vector>

#include "images/image_decoding.h"

namespace wb {

class RecycledBatchMemory;

// All images of one size and channel count (the transforms make them so); throws std::invalid_argument otherwise.
torch::Tensor collateImages(const std::vector<DecodedImage>& images, bool pinned = false);

// ToTensor then Normalize(mean, std): (x / 255 - mean) / std per channel, float32, on x's device.
// collateImages then normalizeImageBatch in one pass over the pixels (HWC bytes straight into the normalized CHW
// float batch): the same float operations per element — (x / 255 - mean) / std, each correctly rounded — so the
// same numbers, without the uint8 batch, the layout copy and three passes over the floats. The loader's workers
// use it; the device path (data.augment_on) keeps the uint8 batch.
// `memory`, when given, holds the batch (not a pinned one): recycled blocks instead of fresh pages.
torch::Tensor collateNormalized(const std::vector<DecodedImage>& images, const std::vector<double>& mean,
                                const std::vector<double>& std, bool pinned = false,
                                RecycledBatchMemory* memory = nullptr);

// Normalize of a float batch still in pixel units [0, 255] (resampled on the device): /255, - mean, / std in place.
torch::Tensor normalizeScaledBatch(torch::Tensor pixels, const std::vector<double>& mean, const std::vector<double>& std);

// `pinned`: the result in page-locked memory (a CPU batch about to be copied to a GPU).
torch::Tensor normalizeImageBatch(const torch::Tensor& uint8_batch, const std::vector<double>& mean,
                                  const std::vector<double>& std, bool pinned = false);

}  // namespace wb
