// data.images.jpeg_draft: a JPEG decoded at 1/2, 1/4 or 1/8 of its size, the scale chosen as Pillow's draft
// chooses it, gives Pillow's drafted pixels byte for byte; a scale that would go below the size asked for is
// not used; PNG files are decoded whole.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "images/image_decoding.h"
#include "support/image_folder.h"
#include "support/temporary_folder.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

TEST(JpegDraft, ScaledDecodeIsPillowsDraftPixelForPixel) {
  const test::TemporaryFolder folder("test-draft");
  const fs::path dir = folder.file("images");
  // Colour photos-like JPEGs (baseline and progressive) of 256-383 px a side, and grey and palette PNGs.
  test::makeGarmentFolder(dir.string(), 6, 1, 256);
  std::vector<std::string> jpegs;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().string();
    if (entry.path().extension() == ".jpg" || entry.path().extension() == ".jpeg") jpegs.push_back(name);
  }
  ASSERT_GE(jpegs.size(), 2u);
  for (const int size : {40, 64, 100, 200, 300}) {
    std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                          "/tests/backend/images/draft_like_pillow.py " + std::to_string(size);
    for (const auto& file : jpegs) command += " " + file;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    for (const auto& file : jpegs) {
      const std::string stem = file + ".draft" + std::to_string(size);
      int64_t width = 0, height = 0;
      std::ifstream(stem + ".size") >> width >> height;
      std::ifstream in(stem + ".rgb", std::ios::binary);
      const std::vector<uint8_t> pillow((std::istreambuf_iterator<char>(in)),
                                        std::istreambuf_iterator<char>());
      const DecodedImage image = readImageFile(file, 3, size);
      EXPECT_EQ(image.width, width) << file << " at " << size;
      EXPECT_EQ(image.height, height) << file << " at " << size;
      EXPECT_TRUE(std::equal(image.pixels.begin(), image.pixels.end(), pillow.begin(), pillow.end()))
          << file << " at " << size << ": drafted pixels differ from Pillow's";
      EXPECT_GE(std::min(image.width, image.height), std::min<int64_t>(size, 256)) << file;
      if (size <= 64) {
        EXPECT_LE(image.width, 383 / 4 + 1) << file << ": a scale of 1/4 or less was due";
      }
    }
  }
  // Without a size the file is decoded whole; a PNG is decoded whole whatever the size.
  EXPECT_GE(readImageFile(jpegs.front(), 3, 0).height, 256);
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() == ".png") {
      EXPECT_GE(readImageFile(entry.path().string(), 3, 40).height, 256) << entry.path();
      break;
    }
  }
}

}  // namespace
}  // namespace wb
