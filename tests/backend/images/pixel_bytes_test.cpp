// Decoded images' bytes come from a few blocks per thread, reused: a block given back is handed out again for
// an image of about its size, not for one less than half of it, and at most a few stay idle (the largest).

#include "images/pixel_bytes.h"

#include <gtest/gtest.h>

#include <thread>

namespace wb {
namespace {

TEST(PixelBytes, BlocksAreReusedForImagesOfAboutTheirSize) {
  const size_t image = 224 * 224 * 3;
  const uint8_t* first = nullptr;
  {
    PixelBytes pixels(image);
    first = pixels.data();
    pixels[0] = 7;
  }
  {
    PixelBytes again(image - 1000);  // a slightly smaller image fits the same block
    EXPECT_EQ(again.data(), first);
    PixelBytes other(image);  // the block is in use: another one
    EXPECT_NE(other.data(), first);
  }
  {
    PixelBytes small(image / 3);  // less than half: the kept block stays for the larger images
    EXPECT_NE(small.data(), first);
    PixelBytes filled(image, 9);  // sized with a value: filled
    EXPECT_EQ(filled[image - 1], 9);
  }
  // Many blocks given back at once: the largest few stay, the others are freed; any size still comes out
  // right.
  {
    std::vector<PixelBytes> many;
    for (size_t i = 1; i <= 12; ++i) many.emplace_back(i * 40000);
  }
  PixelBytes largest(12 * 40000);
  EXPECT_EQ(largest.size(), 12u * 40000);
  // Another thread has its own blocks; one ending frees them (checked by the sanitizers' builds).
  std::thread([] {
    PixelBytes pixels(100000);
    pixels.back() = 1;
  }).join();
}

}  // namespace
}  // namespace wb
