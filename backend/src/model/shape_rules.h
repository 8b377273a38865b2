#pragma once
// The shape checks several layer families share, with messages that say what to put before the layer.

#include <cstdint>

#include "model/layer.h"

namespace wb {

// Throws ShapeError unless `input` is an image [C, H, W].
void requireImage(const Shape& input);
// Throws ShapeError unless `input` is tokens [N, D].
void requireTokens(const Shape& input);
// Throws ShapeError unless `input` is flat features [F].
void requireFlat(const Shape& input);

// Output length of a sliding window (convolution, pooling) along one axis; throws ShapeError when the padded
// input is smaller than the window. `axis` names the axis in the message ("height").
int64_t slidingOutput(int64_t size, int64_t kernel, int64_t stride, int64_t padding, const char* axis);

int64_t elementCount(const Shape& shape);

}  // namespace wb
