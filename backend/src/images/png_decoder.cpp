// Why each rule (libpng 1.6's pngrtran.c; Pillow's PngImagePlugin.py, Unpack.c and Convert.c): Pillow applies
// no gamma, sRGB or ICC chunk, drops alpha when converting to RGB (no compositing), ignores tRNS, looks
// palettes up, and scales 1/2/4-bit grey to 0..255. 16-bit colour (RGB, RGBA, grey+alpha) keeps the high
// byte; 16-bit grey alone is Pillow's "I;16", which converts to L and RGB by saturating (min(v, 255)), not by
// the high byte: a quirk torchvision's loader inherits, kept here so a model sees what it would see in
// PyTorch. libpng's simplified API would do none of that (it linearizes 16-bit files and composites alpha),
// so the transforms are set one by one. libpng reports errors by longjmp: the reading happens in a function
// with nothing to destroy, and the C++ side throws after it returns.

#include "images/png_decoder.h"

#include <png.h>

#include <csetjmp>
#include <cstring>

#include "workbench/errors.h"

namespace wb {
namespace {

struct MemoryInput {
  const uint8_t* bytes;
  size_t size;
  size_t offset;
};

struct PngRead {
  char error[256];
  bool too_many_pixels;
  uint32_t width;
  uint32_t height;
  int channels;     // what the rows hold: 1 (grey), 2 (grey 16-bit, big-endian) or 3 (RGB)
  uint8_t* pixels;  // malloc'd rows, width * channels bytes each
};

void readFromMemory(png_structp png, png_bytep out, png_size_t length) {
  auto* input = static_cast<MemoryInput*>(png_get_io_ptr(png));
  if (input->size - input->offset < length) png_error(png, "the file ends early (truncated)");
  std::memcpy(out, input->bytes + input->offset, length);
  input->offset += length;
}

void onError(png_structp png, png_const_charp message) {
  auto* read = static_cast<PngRead*>(png_get_error_ptr(png));
  std::strncpy(read->error, message, sizeof(read->error) - 1);
  png_longjmp(png, 1);
}

void onWarning(png_structp, png_const_charp) {}  // Pillow ignores them as well

// C-style on purpose: between setjmp and a longjmp there is nothing whose destructor could be skipped.
bool readPng(MemoryInput* input, PngRead* read, bool want_rgb) {
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, read, onError, onWarning);
  if (!png) {
    std::strcpy(read->error, "out of memory");
    return false;
  }
  png_infop info = png_create_info_struct(png);
  png_bytepp volatile rows = nullptr;  // volatile: set after setjmp and freed after a longjmp
  read->pixels = nullptr;
  if (!info || setjmp(png_jmpbuf(png))) {
    if (!info) std::strcpy(read->error, "out of memory");
    std::free(rows);
    std::free(read->pixels);
    read->pixels = nullptr;
    png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    return false;
  }
  png_set_read_fn(png, input, readFromMemory);
  png_set_user_limits(png, 1u << 16, 1u << 16);
  png_read_info(png, info);
  const int color_type = png_get_color_type(png, info);
  const int bit_depth = png_get_bit_depth(png, info);
  const bool grey16 = color_type == PNG_COLOR_TYPE_GRAY && bit_depth == 16;
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (bit_depth == 16 && !grey16) png_set_strip_16(png);
  if (color_type & PNG_COLOR_MASK_ALPHA || color_type == PNG_COLOR_TYPE_PALETTE) png_set_strip_alpha(png);
  const bool colour = color_type & PNG_COLOR_MASK_COLOR;
  if (want_rgb && !colour && !grey16) png_set_gray_to_rgb(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  read->width = png_get_image_width(png, info);
  read->height = png_get_image_height(png, info);
  if (static_cast<int64_t>(read->width) * read->height > kMaxImagePixels) {
    read->too_many_pixels = true;  // the message is made outside (no C++ object may live across the longjmp)
    png_longjmp(png, 1);
  }
  const size_t row_bytes = png_get_rowbytes(png, info);
  read->channels = static_cast<int>(row_bytes / read->width);
  read->pixels = static_cast<uint8_t*>(std::malloc(row_bytes * read->height));
  rows = static_cast<png_bytepp>(std::malloc(sizeof(png_bytep) * read->height));
  if (!read->pixels || !rows) png_error(png, "out of memory");
  for (uint32_t y = 0; y < read->height; ++y) rows[y] = read->pixels + y * row_bytes;
  png_read_image(png, const_cast<png_bytepp>(rows));
  png_read_end(png, nullptr);
  std::free(rows);
  png_destroy_read_struct(&png, &info, nullptr);
  return true;
}

}  // namespace

DecodedImage decodePng(const uint8_t* bytes, size_t size, const std::string& name, int channels) {
  MemoryInput input{bytes, size, 0};
  PngRead read{};
  if (!readPng(&input, &read, channels == 3)) {
    if (read.too_many_pixels) {
      throw DataError(name + ": " + tooManyPixels(read.width, read.height),
                      "Remove it from the image folder, or save it smaller.");
    }
    throw DataError(name + ": the PNG cannot be decoded (" + read.error + ")",
                    "Remove it from the image folder, or save it again as a PNG or JPEG.");
  }
  struct Freed {
    uint8_t* p;
    ~Freed() { std::free(p); }
  } freed{read.pixels};
  DecodedImage image;
  image.width = read.width;
  image.height = read.height;
  const size_t n = static_cast<size_t>(read.width) * read.height;
  if (read.channels == 2) {  // 16-bit grey: saturated, as Pillow converts "I;16"
    image.channels = 1;
    image.pixels.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const uint32_t v = (static_cast<uint32_t>(read.pixels[2 * i]) << 8) | read.pixels[2 * i + 1];
      image.pixels[i] = static_cast<uint8_t>(v > 255 ? 255 : v);
    }
    if (channels == 3) {
      PixelBytes rgb(n * 3);
      for (size_t i = 0; i < n; ++i) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = image.pixels[i];
      image.pixels = std::move(rgb);
      image.channels = 3;
    }
    return image;
  }
  image.channels = read.channels;
  image.pixels.assign(read.pixels, read.pixels + n * read.channels);
  if (channels == 1 && image.channels == 3) convertRgbToGrey(image);
  return image;
}

}  // namespace wb
