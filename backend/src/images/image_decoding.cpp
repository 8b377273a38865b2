#include "images/image_decoding.h"

#include <cstring>
#include <fstream>
#include <iterator>

#include "images/jpeg_decoder.h"
#include "images/png_decoder.h"
#include "workbench/errors.h"

namespace wb {

ImageFormat sniffImageFormat(const uint8_t* bytes, size_t size) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff) return ImageFormat::Jpeg;
  if (size >= 8 && std::memcmp(bytes, kPng, 8) == 0) return ImageFormat::Png;
  return ImageFormat::Unknown;
}

std::string tooManyPixels(int64_t width, int64_t height) {
  return "the image is " + std::to_string(width) + " x " + std::to_string(height) +
         " pixels, more than the " + std::to_string(kMaxImagePixels) + " Pillow (torchvision's loader) opens";
}

void convertRgbToGrey(DecodedImage& image) {
  if (image.channels != 3) return;
  const size_t n = static_cast<size_t>(image.height * image.width);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = image.pixels[3 * i], g = image.pixels[3 * i + 1], b = image.pixels[3 * i + 2];
    image.pixels[i] = static_cast<uint8_t>((19595 * r + 38470 * g + 7471 * b + 0x8000) >> 16);
  }
  image.pixels.resize(n);
  image.channels = 1;
}

DecodedImage decodeImage(const uint8_t* bytes, size_t size, const std::string& name, int channels,
                         int64_t draft_shorter_side, const RowsNeeded& rows_needed) {
  if (channels != 1 && channels != 3) throw std::invalid_argument("decodeImage: channels must be 1 or 3");
  switch (sniffImageFormat(bytes, size)) {
    case ImageFormat::Jpeg:
      return decodeJpeg(bytes, size, name, channels, draft_shorter_side, rows_needed);
    case ImageFormat::Png: {
      DecodedImage image = decodePng(bytes, size, name, channels);
      if (rows_needed)
        rows_needed(image.height, image.width);  // asked all the same: the caller draws from it
      return image;
    }
    case ImageFormat::Unknown:
      break;
  }
  throw DataError(name + ": not a JPEG or PNG image" + (size == 0 ? " (the file is empty)" : ""),
                  "Remove it from the image folder, or convert it to JPEG or PNG.");
}

DecodedImage readImageFile(const std::string& path, int channels, int64_t draft_shorter_side,
                           const RowsNeeded& rows_needed) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw DataError(path + ": cannot be read", "Check that the file exists and that you may read it.");
  // One read of the whole file (the loader's hot path: no byte-by-byte stream iteration).
  const std::streamoff size = in.tellg();
  PixelBytes bytes(size > 0 ? static_cast<size_t>(size) : 0);  // uninitialized, a reused block
  in.seekg(0);
  if (size > 0) in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
  if (size < 0 || in.bad() || (size > 0 && in.gcount() != size)) {
    throw DataError(path + ": reading it failed", "Check the disk holding the image folder.");
  }
  return decodeImage(bytes.data(), bytes.size(), path, channels, draft_shorter_side, rows_needed);
}

}  // namespace wb
