#pragma once
// One image file's pixels as torchvision's ImageFolder sees them through Pillow
// (`Image.open(f).convert("RGB")`, or "L" for one channel), bit for bit, decoded by the libraries made for
// each format: libjpeg-turbo (its libjpeg API, as Pillow's) for JPEG (grey, YCbCr, RGB, CMYK and YCCK,
// baseline and progressive) and libpng for PNG (grey, grey+alpha, RGB, RGBA and palette, 1 to 16 bits,
// interlaced or not). The format is told by the file's signature, not its name. No Torch here: the loader's
// workers call this for every sample.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "images/pixel_bytes.h"

namespace wb {

struct DecodedImage {
  int64_t height = 0;
  int64_t width = 0;
  int channels = 0;   // 1 (grey) or 3 (RGB)
  PixelBytes pixels;  // height x width x channels, row after row (HWC)
};

enum class ImageFormat { Jpeg, Png, Unknown };

// Pillow refuses an image of more pixels than this (twice Image.MAX_IMAGE_PIXELS: a "decompression bomb", a
// few bytes that declare a gigapixel image), and so do we, before allocating anything for it.
constexpr int64_t kMaxImagePixels = 178956970;
// "the image is W x H pixels, more than the ... ": the refusal's words.
std::string tooManyPixels(int64_t width, int64_t height);

ImageFormat sniffImageFormat(const uint8_t* bytes, size_t size);

// `channels`: 3 for RGB, 1 for grey. Throws wb::DataError naming `name` (the file) and what to do: not a JPEG
// or PNG, truncated, corrupt, a JPEG colour space or PNG layout it cannot read. `draft_shorter_side` > 0: a
// JPEG is decoded at 1/2, 1/4 or 1/8 of its size (libjpeg's DCT scaling, far less work) when its shorter side
// stays at least that long — what Pillow's Image.draft("RGB", (n, n)) does, pixel for pixel; not what
// torchvision's loader does, so off (0) unless asked for. PNG files are always decoded whole. `rows_needed`,
// when given, is called once the image's size is known (as decoded: height, width) and answers how many rows
// from the top the caller will use: a JPEG is decoded down to there and comes back that many rows high (those
// rows exactly as a whole decode gives them; a training crop's box is drawn before decoding, so what lies
// below it is never decoded). A PNG comes back whole.
using RowsNeeded = std::function<int64_t(int64_t height, int64_t width)>;
DecodedImage decodeImage(const uint8_t* bytes, size_t size, const std::string& name, int channels,
                         int64_t draft_shorter_side = 0, const RowsNeeded& rows_needed = {});
DecodedImage readImageFile(const std::string& path, int channels, int64_t draft_shorter_side = 0,
                           const RowsNeeded& rows_needed = {});

// Pillow's RGB -> L: (19595 R + 38470 G + 7471 B + 0x8000) >> 16, in place (the image keeps one channel).
void convertRgbToGrey(DecodedImage& image);

}  // namespace wb
