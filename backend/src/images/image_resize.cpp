// Pillow's resampling as libImaging/Resample.c does it for 8-bit images (precompute_coeffs,
// normalize_coeffs_8bpc, ImagingResampleHorizontal_8bpc / Vertical_8bpc, ImagingResampleInner), in the same
// order of double operations, so that the results are the same bytes.

#include "images/image_resize.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace wb {
namespace {

constexpr int kPrecisionBits = 32 - 8 - 2;

double bilinearFilter(double x) {
  if (x < 0.0) x = -x;
  if (x < 1.0) return 1.0 - x;
  return 0.0;
}

// For each output position: the first input index, how many inputs, and their fixed-point weights.
struct Coefficients {
  int ksize = 0;
  std::vector<int> bounds;  // xmin, count per output
  std::vector<int32_t> weights;
};

Coefficients precompute(int in_size, int out_size) {
  const double support_of_filter = 1.0;  // bilinear
  const double scale = static_cast<double>(in_size) / out_size;
  const double filterscale = scale < 1.0 ? 1.0 : scale;
  const double support = support_of_filter * filterscale;
  Coefficients c;
  c.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.bounds.resize(static_cast<size_t>(out_size) * 2);
  std::vector<double> kk(static_cast<size_t>(out_size) * c.ksize, 0.0);
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    double ww = 0.0;
    const double ss = 1.0 / filterscale;
    int xmin = static_cast<int>(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int xmax = static_cast<int>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    double* k = &kk[static_cast<size_t>(xx) * c.ksize];
    for (int x = 0; x < xmax; ++x) {
      const double w = bilinearFilter((x + xmin - center + 0.5) * ss);
      k[x] = w;
      ww += w;
    }
    for (int x = 0; x < xmax; ++x) {
      if (ww != 0.0) k[x] /= ww;
    }
    c.bounds[xx * 2] = xmin;
    c.bounds[xx * 2 + 1] = xmax;
  }
  c.weights.resize(kk.size());
  for (size_t i = 0; i < kk.size(); ++i) {
    c.weights[i] = kk[i] < 0 ? static_cast<int32_t>(-0.5 + kk[i] * (1 << kPrecisionBits))
                             : static_cast<int32_t>(0.5 + kk[i] * (1 << kPrecisionBits));
  }
  return c;
}

// Pillow's clip8: the same bytes as its branches (>= 2^30 -> 255, <= 0 -> 0, else the top byte), without
// them.
inline uint8_t clip8(int32_t in) {
  return static_cast<uint8_t>(std::clamp(in >> kPrecisionBits, 0, 255));
}

// Where the CPU has AVX2, the loops below also get an AVX2 body, picked when the program starts (the portable
// build targets plain x86-64, whose SSE2 lacks a 32-bit multiply). Integer sums give the same bytes either
// way.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define WB_RESIZE_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define WB_RESIZE_CLONES
#endif

// One output line = the sum over taps of input lines times their weight. One accumulator per byte of the
// line, so that the inner loop runs along contiguous bytes and vectorizes; an integer sum in any order is
// Pillow's.
WB_RESIZE_CLONES
void resampleLine(const uint8_t* first, int64_t stride, int count, const int32_t* k, int64_t line,
                  int32_t* __restrict acc, uint8_t* __restrict out) {
  for (int64_t i = 0; i < line; ++i) acc[i] = 1 << (kPrecisionBits - 1);
  for (int y = 0; y < count; ++y) {
    const uint8_t* __restrict src = first + y * stride;
    const int32_t w = k[y];
    for (int64_t i = 0; i < line; ++i) acc[i] += src[i] * w;
  }
  for (int64_t i = 0; i < line; ++i) out[i] = clip8(acc[i]);
}

// Lines of `pixels` (lines x line bytes) resampled across lines into `out_lines` lines.
PixelBytes resampleAcrossLines(const uint8_t* pixels, int64_t line, int64_t out_lines, const Coefficients& c,
                               int shift) {
  PixelBytes out(static_cast<size_t>(out_lines * line));
  std::vector<int32_t> acc(static_cast<size_t>(line));
  for (int64_t yy = 0; yy < out_lines; ++yy) {
    const int first = c.bounds[yy * 2] - shift, count = c.bounds[yy * 2 + 1];
    resampleLine(pixels + first * line, line, count, &c.weights[static_cast<size_t>(yy) * c.ksize], line,
                 acc.data(), out.data() + yy * line);
  }
  return out;
}

// Rows x columns of `Channels`-byte pixels, turned so that columns become rows.
template <int Channels>
void transposeTiles(const uint8_t* __restrict pixels, int64_t rows, int64_t columns,
                    uint8_t* __restrict out) {
  constexpr int64_t kTile = 32;  // tiles that stay in the L1 cache on both sides
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    for (int64_t c0 = 0; c0 < columns; c0 += kTile) {
      const int64_t r1 = std::min(rows, r0 + kTile), c1 = std::min(columns, c0 + kTile);
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t col = c0; col < c1; ++col) {
          for (int b = 0; b < Channels; ++b)
            out[(col * rows + r) * Channels + b] = pixels[(r * columns + col) * Channels + b];
        }
      }
    }
  }
}

PixelBytes transposed(const uint8_t* pixels, int64_t rows, int64_t columns, int channels) {
  PixelBytes out(static_cast<size_t>(rows * columns * channels));
  switch (channels) {
    case 1:
      transposeTiles<1>(pixels, rows, columns, out.data());
      break;
    case 3:
      transposeTiles<3>(pixels, rows, columns, out.data());
      break;
    case 4:
      transposeTiles<4>(pixels, rows, columns, out.data());
      break;
    default:
      throw std::invalid_argument("resizeBilinear: images have 1, 3 or 4 channels");
  }
  return out;
}

// Rows first_row.. of `in` resampled along x into `width` columns: the columns turned into lines, resampled
// across lines as the vertical pass is (the same taps and weights per output column), and turned back.
DecodedImage horizontal(const DecodedImage& in, int64_t width, int first_row, int rows,
                        const Coefficients& c) {
  const int ch = in.channels;
  const PixelBytes columns =
      transposed(&in.pixels[static_cast<size_t>(first_row * in.width * ch)], rows, in.width, ch);
  const PixelBytes resampled = resampleAcrossLines(columns.data(), int64_t{rows} * ch, width, c, 0);
  return DecodedImage{rows, width, ch, transposed(resampled.data(), width, rows, ch)};
}

DecodedImage vertical(const DecodedImage& in, int64_t height, const Coefficients& c, int shift) {
  return DecodedImage{height, in.width, in.channels,
                      resampleAcrossLines(in.pixels.data(), in.width * in.channels, height, c, shift)};
}

}  // namespace

DecodedImage resizeBilinear(const DecodedImage& image, int64_t width, int64_t height) {
  if (width <= 0 || height <= 0) throw std::invalid_argument("resizeBilinear: the size must be positive");
  const bool need_horizontal = width != image.width;
  const bool need_vertical = height != image.height;
  const Coefficients horiz = precompute(static_cast<int>(image.width), static_cast<int>(width));
  const Coefficients vert = precompute(static_cast<int>(image.height), static_cast<int>(height));
  // Only the rows the vertical pass reads are resampled horizontally.
  const int first_row = vert.bounds[0];
  const int last_row = vert.bounds[height * 2 - 2] + vert.bounds[height * 2 - 1];
  if (need_horizontal) {
    const DecodedImage rows = horizontal(image, width, first_row, last_row - first_row, horiz);
    return need_vertical ? vertical(rows, height, vert, first_row) : rows;
  }
  return need_vertical ? vertical(image, height, vert, 0) : image;
}

DecodedImage resizeShorterSide(const DecodedImage& image, int64_t size) {
  const bool wide = image.width > image.height;  // torchvision: (short, long) = (w, h) if w <= h else (h, w)
  const int64_t shorter = wide ? image.height : image.width;
  const int64_t longer = wide ? image.width : image.height;
  const auto new_long = static_cast<int64_t>(static_cast<double>(size) * static_cast<double>(longer) /
                                             static_cast<double>(shorter));
  const int64_t width = wide ? new_long : size;
  const int64_t height = wide ? size : new_long;
  if (width == image.width && height == image.height) return image;
  return resizeBilinear(image, width, height);
}

DecodedImage centerCrop(const DecodedImage& image, int64_t height, int64_t width) {
  DecodedImage source = image;
  if (width > image.width || height > image.height) {
    // torchvision pads (left, top) = (crop - size) // 2 and the rest on the right and bottom, with zeros.
    const int64_t pad_left = width > image.width ? (width - image.width) / 2 : 0;
    const int64_t pad_top = height > image.height ? (height - image.height) / 2 : 0;
    const int64_t padded_w = std::max(width, image.width), padded_h = std::max(height, image.height);
    source = DecodedImage{padded_h, padded_w, image.channels,
                          PixelBytes(static_cast<size_t>(padded_h * padded_w * image.channels), 0)};
    for (int64_t y = 0; y < image.height; ++y) {
      std::copy_n(
          &image.pixels[static_cast<size_t>(y * image.width * image.channels)], image.width * image.channels,
          &source.pixels[static_cast<size_t>(((y + pad_top) * padded_w + pad_left) * image.channels)]);
    }
    if (source.width == width && source.height == height) return source;
  }
  // Python's round(): halves to even, as std::nearbyint in the default rounding mode.
  const auto top = static_cast<int64_t>(std::nearbyint((source.height - height) / 2.0));
  const auto left = static_cast<int64_t>(std::nearbyint((source.width - width) / 2.0));
  DecodedImage out{height, width, source.channels,
                   PixelBytes(static_cast<size_t>(height * width * source.channels))};
  for (int64_t y = 0; y < height; ++y) {
    std::copy_n(&source.pixels[static_cast<size_t>(((y + top) * source.width + left) * source.channels)],
                width * source.channels, &out.pixels[static_cast<size_t>(y * width * source.channels)]);
  }
  return out;
}

}  // namespace wb
