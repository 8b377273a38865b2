// Fuzz target: an image file's bytes through the decoder the loader's workers call for every sample
// (decodeImage: the format told by the signature, then libjpeg-turbo or libpng). The first byte picks how it
// is asked: bit 0 grey or RGB, bits 1-2 a JPEG draft size (none, 8, 32, 100), bits 3-7 the rows a training
// crop would need (0 = the whole image, else a share of the height), so the search reaches the scaled decode,
// the stop after the top rows and libjpeg's error paths (longjmp back out of the library) with the rest of
// the input as the file. Promise: a DataError naming the file, or an image whose size and bytes agree — never
// a crash, never a hang on a crafted progressive file (more than 500 scans is refused), never an allocation
// the file cannot justify
// (-rss_limit_mb catches that).

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "images/image_decoding.h"
#include "workbench/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wb;
  if (size < 1 || size > 256 * 1024) return 0;
  const int channels = (data[0] & 1) != 0 ? 1 : 3;
  static const int64_t kDrafts[] = {0, 8, 32, 100};
  const int64_t draft = kDrafts[(data[0] >> 1) & 3];
  const int share = data[0] >> 3;  // 0..31
  int64_t asked_height = -1;
  RowsNeeded rows_needed;
  if (share != 0) {
    rows_needed = [&](int64_t height, int64_t width) {
      if (height <= 0 || width <= 0) fuzz::fuzzFail("rows asked for an image without a size");
      asked_height = height;
      return height * share / 31;  // 0 rows asked: at least one is decoded
    };
  }
  const std::string name = "fuzz-input.jpg";
  try {
    const DecodedImage image = decodeImage(data + 1, size - 1, name, channels, draft, rows_needed);
    if (image.channels != channels) fuzz::fuzzFail("an image of other channels than asked");
    if (image.height <= 0 || image.width <= 0) fuzz::fuzzFail("an image without a size");
    if (image.pixels.size() != static_cast<size_t>(image.height * image.width * image.channels)) {
      fuzz::fuzzFail("pixels that do not fill the image's size");
    }
    if (share != 0 && (asked_height < image.height)) fuzz::fuzzFail("more rows than the image has");
  } catch (const DataError& error) {
    fuzz::expectMessage(error);
    if (std::string(error.what()).find(name) == std::string::npos)
      fuzz::fuzzFail("an error not naming the file");
  }
  return 0;
}
