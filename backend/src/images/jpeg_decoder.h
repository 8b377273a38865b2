#pragma once
// JPEG through libjpeg-turbo's libjpeg API, as Pillow reads it (see image_decoding.h).

#include <cstddef>
#include <cstdint>
#include <string>

#include "images/image_decoding.h"

namespace wb {

// `draft_shorter_side`, `rows_needed`: see decodeImage.
DecodedImage decodeJpeg(const uint8_t* bytes, size_t size, const std::string& name, int channels,
                        int64_t draft_shorter_side = 0, const RowsNeeded& rows_needed = {});

}  // namespace wb
