#pragma once
// PNG through libpng, as Pillow reads it (see image_decoding.h).

#include <cstddef>
#include <cstdint>
#include <string>

#include "images/image_decoding.h"

namespace wb {

DecodedImage decodePng(const uint8_t* bytes, size_t size, const std::string& name, int channels);

}  // namespace wb
