// Why each rule (from libjpeg-turbo 2.1's jdapistd.c, turbojpeg.c and jdcolor.c, Pillow's JpegImagePlugin.py,
// JpegDecode.c, Unpack.c and Convert.c):
// - Pillow decodes through libjpeg's API with its defaults (accurate integer IDCT, fancy upsampling), and so
// do we,
//   with the same libjpeg-turbo: the same RGB. DCT scaling changes the pixels, so it is used only when asked
//   (data.images.jpeg_draft), choosing the scale as Pillow's JpegImageFile.draft does: the largest of 1/8,
//   1/4, 1/2 that keeps both sides at least the size asked for (min(w // size, h // size) ≥ the denominator).
// - Rows come out top to bottom and each is final when it comes out (libjpeg keeps the context fancy
// upsampling
//   needs), so stopping after the rows a caller needs leaves those rows as a whole decode makes them.
// - Grey JPEGs are mode "L" in Pillow: one channel as stored; as RGB the value in all three.
// - Colour JPEGs as grey: Pillow converts its RGB with the L formula (not the file's Y channel).
// - CMYK and YCCK: libjpeg returns the stored values and Pillow takes them as Adobe's inverted CMYK
// ("CMYK;I"),
//   then R = (255 - K) - (C (255 - K)) / 255 in its rounded integer form; on the stored bytes (c, k inverted)
//   that is k - MULDIV255(255 - c, k).
// - libjpeg warnings (corrupt data it could skip) leave a whole image and Pillow ignores them; but a file
// that
//   ends early ("Premature end of JPEG file", libjpeg pads it with grey) Pillow refuses as truncated, and so
//   do we. A progressive file of more than 500 scans is refused (TurboJPEG's TJFLAG_LIMITSCANS: a crafted
//   file can otherwise take minutes).
// - libjpeg reports errors by a callback that must not return: it longjmps back to the setjmp in the two
// C-style
//   steps below, which hold no C++ objects (a longjmp skips destructors).

#include "images/jpeg_decoder.h"

// jpeglib.h needs size_t and FILE declared first.
#include <jerror.h>
#include <jpeglib.h>

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "workbench/errors.h"

namespace wb {
namespace {

constexpr int kMaxProgressiveScans = 500;
constexpr long kMaxDecoderMemory = 768L << 20;

struct JpegErrors {
  jpeg_error_mgr mgr;  // first: libjpeg's err pointer is cast back to this struct
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool truncated;
};

void onJpegError(j_common_ptr cinfo) {
  auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, errors->message);
  std::longjmp(errors->jump, 1);
}

// Warnings (level -1) are counted by libjpeg; only the end of the data coming early matters here.
void onJpegMessage(j_common_ptr cinfo, int level) {
  auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF && !errors->truncated) {
    errors->truncated = true;
    (*cinfo->err->format_message)(cinfo, errors->message);
  }
}

void limitScans(j_common_ptr cinfo) {
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (d->progressive_mode && d->input_scan_number > kMaxProgressiveScans) {
    auto* errors = reinterpret_cast<JpegErrors*>(cinfo->err);
    std::snprintf(errors->message, sizeof(errors->message), "a progressive JPEG of more than %d scans",
                  kMaxProgressiveScans);
    std::longjmp(errors->jump, 1);
  }
}

// One decompressor per thread, kept: the loader's workers decode thousands of files each.
struct JpegReader {
  jpeg_decompress_struct d{};
  JpegErrors errors{};
  jpeg_progress_mgr progress{};
  JpegReader() {
    d.err = jpeg_std_error(&errors.mgr);
    errors.mgr.error_exit = onJpegError;
    errors.mgr.emit_message = onJpegMessage;
    jpeg_create_decompress(&d);
    // libjpeg's own buffers (a progressive file's whole-image coefficients) stay under this; past it the file
    // is refused ("backing store not supported") instead of the process running out of memory.
    d.mem->max_memory_to_use = kMaxDecoderMemory;
    progress.progress_monitor = limitScans;
    d.progress = &progress;
  }
  ~JpegReader() { jpeg_destroy_decompress(&d); }
  JpegReader(const JpegReader&) = delete;
  JpegReader& operator=(const JpegReader&) = delete;
};

// The header; false (errors.message set) when libjpeg refused the file.
bool readJpegHeader(JpegReader* r, const uint8_t* bytes, size_t size) {
  r->errors.truncated = false;
  r->errors.message[0] = '\0';
  if (setjmp(r->errors.jump) != 0) return false;
  jpeg_mem_src(&r->d, bytes, static_cast<unsigned long>(size));
  jpeg_read_header(&r->d, TRUE);
  return true;
}

// The first `rows` rows of the image at 1/`denominator` scale in `colour`, `stride` bytes apart into `out`;
// false (errors.message set) when libjpeg refused the file.
bool readJpegRows(JpegReader* r, J_COLOR_SPACE colour, int denominator, JDIMENSION rows, uint8_t* out,
                  size_t stride) {
  if (setjmp(r->errors.jump) != 0) return false;
  j_decompress_ptr d = &r->d;
  d->out_color_space = colour;
  d->scale_num = 1;
  d->scale_denom = static_cast<unsigned int>(denominator);
  jpeg_start_decompress(d);
  JSAMPROW lines[16];
  while (d->output_scanline < rows) {
    const JDIMENSION n = std::min<JDIMENSION>(16, rows - d->output_scanline);
    for (JDIMENSION i = 0; i < n; ++i) lines[i] = out + (d->output_scanline + i) * stride;
    jpeg_read_scanlines(d, lines, n);
  }
  // A whole image reads on to the end of the file (a missing end is a truncated file, as for Pillow); a part
  // stops here.
  if (rows == d->output_height) {
    jpeg_finish_decompress(d);
  } else {
    jpeg_abort_decompress(d);
  }
  return true;
}

// Pillow's MULDIV255: a * b / 255, rounded, in integers.
inline uint32_t mulDiv255(uint32_t a, uint32_t b) {
  const uint32_t t = a * b + 128;
  return ((t >> 8) + t) >> 8;
}

[[noreturn]] void refuse(const std::string& name, const std::string& what) {
  throw DataError(name + ": " + what, "Remove it from the image folder, or save it again as a JPEG or PNG.");
}

[[noreturn]] void refuseFailed(const JpegReader& r, const std::string& name) {
  refuse(name, std::string("the JPEG cannot be decoded (") + r.errors.message + ")");
}

DecodedImage decodeWith(JpegReader& r, const uint8_t* bytes, size_t size, const std::string& name,
                        int channels, int64_t draft_shorter_side, const RowsNeeded& rows_needed) {
  if (!readJpegHeader(&r, bytes, size)) {
    refuse(name, std::string("the JPEG's header cannot be read (") + r.errors.message + ")");
  }
  int64_t width = r.d.image_width, height = r.d.image_height;
  if (width <= 0 || height <= 0) refuse(name, "the JPEG's header cannot be read (no size)");
  if (width * height > kMaxImagePixels) refuse(name, tooManyPixels(width, height));
  int denominator = 1;
  if (draft_shorter_side > 0) {
    const int64_t scale = std::min<int64_t>(width / draft_shorter_side, height / draft_shorter_side);
    denominator = scale >= 8 ? 8 : scale >= 4 ? 4 : scale >= 2 ? 2 : 1;
    // libjpeg's scaled size: the side divided, rounded up.
    width = (width + denominator - 1) / denominator;
    height = (height + denominator - 1) / denominator;
  }
  int64_t rows = height;
  if (rows_needed) rows = std::clamp<int64_t>(rows_needed(height, width), 1, height);
  DecodedImage image;
  image.width = width;
  image.height = rows;
  const size_t pixels = static_cast<size_t>(width) * static_cast<size_t>(rows);
  const J_COLOR_SPACE stored = r.d.jpeg_color_space;
  if (stored == JCS_CMYK || stored == JCS_YCCK) {
    PixelBytes cmyk(pixels * 4);
    if (!readJpegRows(&r, JCS_CMYK, denominator, static_cast<JDIMENSION>(rows), cmyk.data(),
                      static_cast<size_t>(width) * 4)) {
      refuseFailed(r, name);
    }
    image.channels = 3;
    image.pixels.resize(pixels * 3);
    for (size_t i = 0; i < pixels; ++i) {
      const uint32_t k = cmyk[4 * i + 3];
      for (int c = 0; c < 3; ++c)
        image.pixels[3 * i + c] = static_cast<uint8_t>(k - mulDiv255(255 - cmyk[4 * i + c], k));
    }
  } else {
    const bool grey_file = stored == JCS_GRAYSCALE;
    const bool as_grey = channels == 1 && grey_file;
    image.channels = as_grey ? 1 : 3;
    image.pixels.resize(pixels * image.channels);
    if (!readJpegRows(&r, as_grey ? JCS_GRAYSCALE : JCS_RGB, denominator, static_cast<JDIMENSION>(rows),
                      image.pixels.data(), static_cast<size_t>(width) * image.channels)) {
      refuseFailed(r, name);
    }
  }
  if (r.errors.truncated) refuse(name, std::string("the JPEG is truncated (") + r.errors.message + ")");
  if (channels == 1 && image.channels == 3) convertRgbToGrey(image);
  return image;
}

}  // namespace

DecodedImage decodeJpeg(const uint8_t* bytes, size_t size, const std::string& name, int channels,
                        int64_t draft_shorter_side, const RowsNeeded& rows_needed) {
  thread_local std::unique_ptr<JpegReader> reader;
  if (!reader) reader = std::make_unique<JpegReader>();
  try {
    return decodeWith(*reader, bytes, size, name, channels, draft_shorter_side, rows_needed);
  } catch (...) {
    // Made anew after any failure: nothing of a refused file stays in the next one's way.
    reader.reset();
    throw;
  }
}

}  // namespace wb
