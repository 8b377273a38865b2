#include "model/shape_rules.h"

namespace wb {

void requireImage(const Shape& input) {
  if (input.size() == 3) return;
  std::string message = "expects an image input [channels, height, width], got " + shapeToString(input);
  if (input.size() == 1)
    message += ": image layers take neither feature data nor the output of flatten or linear";
  if (input.size() == 2) message += ": image layers cannot follow patch_embed or other token layers";
  throw ShapeError(message);
}

void requireTokens(const Shape& input) {
  if (input.size() == 2) return;
  std::string message = "expects tokens [tokens, dim], got " + shapeToString(input);
  if (input.size() == 3) message += ": add a patch_embed layer before it";
  if (input.size() == 1) message += ": token layers must come before token_pool";
  throw ShapeError(message);
}

void requireFlat(const Shape& input) {
  if (input.size() == 1) return;
  std::string message = "expects a flat input [features], got " + shapeToString(input);
  if (input.size() == 3) message += ": add a flatten layer before it";
  if (input.size() == 2) message += ": add a token_pool layer before it";
  throw ShapeError(message);
}

int64_t slidingOutput(int64_t size, int64_t kernel, int64_t stride, int64_t padding, const char* axis) {
  const int64_t padded = size + 2 * padding;
  if (padded < kernel) {
    throw ShapeError("has a kernel of " + std::to_string(kernel) + " along the " + axis +
                     ", larger than the " + (padding ? "padded " : "") + "input's " + std::to_string(padded) +
                     ": use a smaller kernel, more padding, or fewer downsampling layers before it");
  }
  return (padded - kernel) / stride + 1;
}

int64_t elementCount(const Shape& shape) {
  int64_t result = 1;
  for (int64_t size : shape) result *= size;
  return result;
}

}  // namespace wb
