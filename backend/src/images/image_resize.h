#pragma once
// torchvision's Resize and CenterCrop on the images its loader gives (PIL images), bit for bit, so that a
// model sees here what it sees in PyTorch: Pillow's BILINEAR resampling (a triangle filter widened by the
// scale when shrinking, so it is antialiased; separable, horizontal pass first into 8-bit rows, then
// vertical; 22-bit fixed point weights), torchvision's output size for Resize(int) and its rounding of the
// crop's offset.

#include <cstdint>

#include "images/image_decoding.h"

namespace wb {

// Pillow's Image.resize((width, height), Image.BILINEAR). The same size returns a copy.
DecodedImage resizeBilinear(const DecodedImage& image, int64_t width, int64_t height);

// torchvision.transforms.Resize(size) with an int: the shorter side becomes `size`, the longer
// int(size * long / short) (truncated), as torchvision computes it.
DecodedImage resizeShorterSide(const DecodedImage& image, int64_t size);

// torchvision.transforms.CenterCrop((height, width)): the offset round((H - h) / 2) (halves to even, as
// Python's round), the image first padded with zeros where the crop is larger.
DecodedImage centerCrop(const DecodedImage& image, int64_t height, int64_t width);

}  // namespace wb
