#pragma once
// JPEG through libjpeg-turbo's TurboJPEG API, as Pillow reads it (see image_decoding.h).

#include <cstddef>
#include <cstdint>
#include <string>

#include "images/image_decoding.h"

namespace wb {

DecodedImage decodeJpeg(const uint8_t* bytes, size_t size, const std::string& name, int channels);

}  // namespace wb
