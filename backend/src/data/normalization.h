#pragma once
// Normalization statistics and their application, per channel for images [N, C, H, W] and per feature for
// tables [N, F] (dimension 1 in both). Both work through the rows in chunks, so a uint8 image set is never
// converted to floating point whole just to be measured.

#include <torch/torch.h>

#include "data/dataset.h"

namespace wb {

// Statistics of the rows `rows` (int64 indices) of `inputs`. uint8 images are measured as pixel / 255, so the
// numbers are in the familiar [0, 1] units (Fashion-MNIST: mean 0.286, std 0.353). Population standard
// deviation; a constant channel or feature gets std 1 so that it maps to 0 instead of dividing by zero.
Normalization computeNormalization(const torch::Tensor& inputs, const torch::Tensor& rows);

// float32 (x - mean) / std of the rows `rows` of `inputs`, x being pixel / 255 for uint8 images.
torch::Tensor normalizeRows(const torch::Tensor& inputs, const torch::Tensor& rows,
                            const Normalization& norm);

}  // namespace wb
