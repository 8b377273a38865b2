// Every kind of JPEG and PNG the decoder reads gives the pixels Pillow gives (torchvision's ImageFolder
// loader), byte for byte, as RGB and as grey: baseline, 4:4:4, progressive, grey and CMYK JPEGs; RGB, grey,
// RGBA, grey+alpha, palette (with transparency), 1-bit and 16-bit PNGs. Bad files are refused, naming the
// file. The images and Pillow's pixels are made by make_test_images.py with Debian's python3-pil.

#include "images/image_decoding.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "images/image_transform.h"
#include "support/temporary_folder.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> readBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class ImageDecoding : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = test::folderForThisTest("test-images") + "/images";  // removed when the suite ends
    const std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                                "/tests/backend/images/make_test_images.py " + s_dir;
    ASSERT_EQ(std::system(command.c_str()), 0)
        << command << " (needs python3-pil and python3-numpy: scripts/setup.sh)";
  }

  // Decodes `name` both ways and compares with Pillow's bytes.
  static void expectPillowPixels(const std::string& name) {
    const fs::path file = fs::path(s_dir) / name;
    std::ifstream size_file(file.string() + ".size");
    int64_t width = 0, height = 0;
    size_file >> width >> height;
    ASSERT_GT(width, 0) << name;
    for (const int channels : {3, 1}) {
      const DecodedImage image = readImageFile(file.string(), channels);
      EXPECT_EQ(image.width, width) << name;
      EXPECT_EQ(image.height, height) << name;
      EXPECT_EQ(image.channels, channels) << name;
      const std::vector<uint8_t> pillow = readBytes(file.string() + (channels == 3 ? ".rgb" : ".l"));
      ASSERT_EQ(image.pixels.size(), pillow.size()) << name << " as " << channels << " channel(s)";
      size_t differing = 0;
      for (size_t i = 0; i < pillow.size(); ++i) differing += image.pixels[i] != pillow[i];
      EXPECT_EQ(differing, 0u) << name << " as " << channels << " channel(s): " << differing << " of "
                               << pillow.size() << " bytes differ from Pillow's";
    }
  }

  static std::string s_dir;
};

std::string ImageDecoding::s_dir;

TEST_F(ImageDecoding, JpegsAsPillowDecodesThem) {
  for (const char* name : {"baseline.jpg", "subsampling444.jpg", "progressive.jpg", "grey.jpg", "cmyk.jpg"}) {
    expectPillowPixels(name);
  }
}

TEST_F(ImageDecoding, PngsAsPillowDecodesThem) {
  for (const char* name :
       {"rgb.png", "grey.png", "rgba.png", "grey_alpha.png", "palette.png", "palette_transparent.png",
        "bilevel.png", "grey16.png", "rgb16.png", "rgba16.png"}) {
    expectPillowPixels(name);
  }
}

TEST_F(ImageDecoding, TheFormatIsToldByTheSignatureNotTheName) {
  const fs::path png = fs::path(s_dir) / "rgb.png";
  const fs::path named_jpg = fs::path(s_dir) / "really-a-png.jpg";
  fs::copy_file(png, named_jpg, fs::copy_options::overwrite_existing);
  EXPECT_EQ(readImageFile(named_jpg.string(), 3).pixels, readImageFile(png.string(), 3).pixels);
}

TEST_F(ImageDecoding, BadFilesAreRefusedNamingTheFile) {
  // A JPEG cut before its first scan: its header cannot be read.
  const std::vector<uint8_t> jpeg = readBytes(fs::path(s_dir) / "baseline.jpg");
  std::ofstream((fs::path(s_dir) / "bad-header.jpg").string(), std::ios::binary)
      .write(reinterpret_cast<const char*>(jpeg.data()), static_cast<std::streamsize>(jpeg.size() / 8));
  // Decompression bombs: a few bytes that declare 20000 x 20000 pixels, refused before anything is allocated.
  std::vector<uint8_t> bomb_jpeg = jpeg;
  for (size_t i = 0; i + 9 < bomb_jpeg.size(); ++i) {
    if (bomb_jpeg[i] == 0xFF && (bomb_jpeg[i + 1] == 0xC0 || bomb_jpeg[i + 1] == 0xC2)) {
      bomb_jpeg[i + 5] = bomb_jpeg[i + 7] = 20000 >> 8;  // height, then width, big-endian
      bomb_jpeg[i + 6] = bomb_jpeg[i + 8] = 20000 & 0xFF;
      break;
    }
  }
  std::ofstream((fs::path(s_dir) / "bad-bomb.jpg").string(), std::ios::binary)
      .write(reinterpret_cast<const char*>(bomb_jpeg.data()), static_cast<std::streamsize>(bomb_jpeg.size()));
  std::vector<uint8_t> bomb_png = readBytes(fs::path(s_dir) / "rgb.png");
  for (const size_t at : {size_t{16}, size_t{20}}) {  // IHDR's width and height, then its CRC made anew
    bomb_png[at] = 0, bomb_png[at + 1] = 0, bomb_png[at + 2] = 20000 >> 8, bomb_png[at + 3] = 20000 & 0xFF;
  }
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 12; i < 29; ++i) {
    crc ^= bomb_png[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  crc ^= 0xFFFFFFFFu;
  for (int k = 0; k < 4; ++k) bomb_png[29 + k] = static_cast<uint8_t>(crc >> (24 - 8 * k));
  std::ofstream((fs::path(s_dir) / "bad-bomb.png").string(), std::ios::binary)
      .write(reinterpret_cast<const char*>(bomb_png.data()), static_cast<std::streamsize>(bomb_png.size()));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bad-bomb.jpg", "20000 x 20000 pixels, more than the 178956970"},
      {"bad-bomb.png", "20000 x 20000 pixels, more than the 178956970"},
      {"bad-header.jpg", "header cannot be read"},
      {"bad-truncated.jpg", "truncated"},
      {"bad-truncated.png", "truncated"},
      {"bad-crc.png", "cannot be decoded"},
      {"bad-text.jpg", "not a JPEG or PNG image"},
      {"bad-empty.png", "the file is empty"},
      {"no-such-file.png", "cannot be read"}};
  for (const auto& [name, words] : cases) {
    const std::string path = (fs::path(s_dir) / name).string();
    try {
      readImageFile(path, 3);
      ADD_FAILURE() << name << " was decoded";
    } catch (const DataError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << message;
      EXPECT_NE(message.find(words), std::string::npos) << message;
      EXPECT_FALSE(e.hint().empty()) << name;
    }
    // The next file on the same thread (a loader worker's next sample) still decodes: a refused file leaves
    // the thread's decompressor usable.
    EXPECT_EQ(readImageFile((fs::path(s_dir) / "progressive.jpg").string(), 3).channels, 3)
        << "after " << name;
  }
}

// A caller that needs only the top rows (a training crop's box) gets those rows as the whole decode gives
// them, Pillow's bytes, and nothing below; a PNG comes back whole, the size asked all the same.
TEST_F(ImageDecoding, TopRowsAsTheWholeDecodeGivesThem) {
  for (const char* name : {"baseline.jpg", "subsampling444.jpg", "progressive.jpg", "grey.jpg", "cmyk.jpg"}) {
    const fs::path file = fs::path(s_dir) / name;
    const std::vector<uint8_t> pillow = readBytes(file.string() + ".rgb");
    const DecodedImage whole = readImageFile(file.string(), 3);
    for (const int64_t rows : {int64_t{1}, int64_t{7}, whole.height / 2, whole.height - 1, whole.height}) {
      int64_t asked_height = 0, asked_width = 0;
      const DecodedImage top = readImageFile(file.string(), 3, 0, [&](int64_t height, int64_t width) {
        asked_height = height;
        asked_width = width;
        return rows;
      });
      EXPECT_EQ(asked_height, whole.height) << name;
      EXPECT_EQ(asked_width, whole.width) << name;
      ASSERT_EQ(top.height, rows) << name;
      ASSERT_EQ(top.pixels.size(), static_cast<size_t>(rows * whole.width * 3)) << name;
      EXPECT_TRUE(std::equal(top.pixels.begin(), top.pixels.end(), pillow.begin()))
          << name << ", " << rows << " rows";
    }
  }
  int64_t asked = 0;
  const DecodedImage png =
      readImageFile((fs::path(s_dir) / "rgb.png").string(), 3, 0, [&](int64_t height, int64_t) {
        asked = height;
        return int64_t{1};
      });
  EXPECT_EQ(png.height, asked);
  EXPECT_GT(png.height, 1);
}

// The training path that draws RandomResizedCrop's box before decoding gives the same pixels, and leaves the
// generator where drawing after a whole decode does (the flip and the next sample see the same stream).
TEST_F(ImageDecoding, TrainingCropDrawnBeforeDecodingIsTheSameCrop) {
  ImageTransform transform;
  transform.crop = 16;
  transform.random_resized_crop = true;
  transform.horizontal_flip = true;
  for (const char* name : {"baseline.jpg", "progressive.jpg", "grey.jpg", "cmyk.jpg", "rgb.png"}) {
    const std::string file = (fs::path(s_dir) / name).string();
    for (uint64_t seed = 0; seed < 12; ++seed) {
      std::mt19937_64 before(seed), after(seed);
      const DecodedImage expected = trainingTransform(readImageFor(file, transform), transform, before);
      const DecodedImage ours = readForTraining(file, transform, after);
      ASSERT_EQ(ours.height, expected.height) << name;
      ASSERT_EQ(ours.width, expected.width) << name;
      EXPECT_TRUE(ours.pixels == expected.pixels) << name << ", seed " << seed;
      EXPECT_EQ(before(), after()) << name << ", seed " << seed;
    }
  }
}

}  // namespace
}  // namespace wb
