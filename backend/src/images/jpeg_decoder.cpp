// Why each rule (from libjpeg-turbo 2.1's turbojpeg.c and jdcolor.c, Pillow's JpegImagePlugin.py, Unpack.c and
// Convert.c):
// - Pillow decodes with libjpeg's defaults (accurate integer IDCT, fancy upsampling), as tjDecompress2 does, so
//   with the same libjpeg-turbo the RGB is the same. DCT scaling changes the pixels, so it is used only when asked
//   (data.images.jpeg_draft), choosing the scale as Pillow's JpegImageFile.draft does: the largest of 1/8, 1/4,
//   1/2 that keeps both sides at least the size asked for (min(w // size, h // size) ≥ the denominator).
// - Grey JPEGs are mode "L" in Pillow: one channel as stored; as RGB the value in all three.
// - Colour JPEGs as grey: Pillow converts its RGB with the L formula (not the file's Y channel).
// - CMYK and YCCK: libjpeg returns the stored values and Pillow takes them as Adobe's inverted CMYK ("CMYK;I"),
//   then R = (255 - K) - (C (255 - K)) / 255 in its rounded integer form; on the stored bytes (c, k inverted)
//   that is k - MULDIV255(255 - c, k).
// - libjpeg warnings (corrupt data it could skip) leave a whole image and Pillow ignores them; but a file that
//   ends early ("Premature end of JPEG file", libjpeg pads it with grey) Pillow refuses as truncated, and so do
//   we.

#include "images/jpeg_decoder.h"

#include <turbojpeg.h>

#include <algorithm>
#include <memory>

#include "workbench/errors.h"

namespace wb {
namespace {

struct TjHandleCloser {
  void operator()(void* handle) const { tjDestroy(handle); }
};
using TjHandle = std::unique_ptr<void, TjHandleCloser>;

// Pillow's MULDIV255: a * b / 255, rounded, in integers.
inline uint32_t mulDiv255(uint32_t a, uint32_t b) {
  const uint32_t t = a * b + 128;
  return ((t >> 8) + t) >> 8;
}

[[noreturn]] void refuse(const std::string& name, const std::string& what) {
  throw DataError(name + ": " + what, "Remove it from the image folder, or save it again as a JPEG or PNG.");
}

// tjDecompress2 returns -1 for a warning too; the image is then whole unless the file ended early.
void checkDecoded(int status, void* handle, const std::string& name) {
  if (status == 0) return;
  const std::string message = tjGetErrorStr2(handle);
  if (tjGetErrorCode(handle) == TJERR_WARNING && message.find("Premature end") == std::string::npos) return;
  if (message.find("Premature end") != std::string::npos) refuse(name, "the JPEG is truncated (" + message + ")");
  refuse(name, "the JPEG cannot be decoded (" + message + ")");
}

DecodedImage decodeWith(const TjHandle& handle, const uint8_t* bytes, size_t size, const std::string& name,
                        int channels, int64_t draft_shorter_side) {
  int width = 0, height = 0, subsampling = 0, colorspace = -1;
  // TurboJPEG 2.1 fails the header call for unusual sampling factors after it has read the size and colour space;
  // decoding does not need the sampling, so only a missing size is fatal.
  const int header = tjDecompressHeader3(handle.get(), bytes, static_cast<unsigned long>(size), &width, &height,
                                         &subsampling, &colorspace);
  if (width <= 0 || height <= 0 || colorspace < 0) {
    refuse(name, std::string("the JPEG's header cannot be read (") + (header != 0 ? tjGetErrorStr2(handle.get()) : "no size") + ")");
  }
  if (draft_shorter_side > 0) {
    const int64_t scale = std::min<int64_t>(width / draft_shorter_side, height / draft_shorter_side);
    const int denominator = scale >= 8 ? 8 : scale >= 4 ? 4 : scale >= 2 ? 2 : 1;
    // libjpeg's scaled size: the side divided, rounded up (TJSCALED).
    width = (width + denominator - 1) / denominator;
    height = (height + denominator - 1) / denominator;
  }
  DecodedImage image;
  image.width = width;
  image.height = height;
  const size_t pixels = static_cast<size_t>(width) * static_cast<size_t>(height);
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK) {
    std::vector<uint8_t> cmyk(pixels * 4);
    checkDecoded(tjDecompress2(handle.get(), bytes, static_cast<unsigned long>(size), cmyk.data(), width, 0, height,
                               TJPF_CMYK, TJFLAG_LIMITSCANS),
                 handle.get(), name);
    image.channels = 3;
    image.pixels.resize(pixels * 3);
    for (size_t i = 0; i < pixels; ++i) {
      const uint32_t k = cmyk[4 * i + 3];
      for (int c = 0; c < 3; ++c) image.pixels[3 * i + c] = static_cast<uint8_t>(k - mulDiv255(255 - cmyk[4 * i + c], k));
    }
    if (channels == 1) convertRgbToGrey(image);
    return image;
  }
  const bool grey_file = colorspace == TJCS_GRAY;
  const bool as_grey = channels == 1 && grey_file;
  image.channels = as_grey ? 1 : 3;
  image.pixels.resize(pixels * image.channels);
  checkDecoded(tjDecompress2(handle.get(), bytes, static_cast<unsigned long>(size), image.pixels.data(), width, 0,
                             height, as_grey ? TJPF_GRAY : TJPF_RGB, TJFLAG_LIMITSCANS),
               handle.get(), name);
  if (channels == 1 && !grey_file) convertRgbToGrey(image);
  return image;
}

}  // namespace

DecodedImage decodeJpeg(const uint8_t* bytes, size_t size, const std::string& name, int channels,
                        int64_t draft_shorter_side) {
  // One decompressor per thread, kept: the loader's workers decode thousands of files each. A file it refused can
  // leave it unable to read the next header (libjpeg-turbo 2.1), so it is made anew after any failure.
  thread_local TjHandle handle;
  if (!handle) handle.reset(tjInitDecompress());
  if (!handle) throw std::runtime_error(std::string("TurboJPEG: ") + tjGetErrorStr2(nullptr));
  try {
    return decodeWith(handle, bytes, size, name, channels, draft_shorter_side);
  } catch (...) {
    handle.reset();
    throw;
  }
}

}  // namespace wb
