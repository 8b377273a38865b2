// Every kind of JPEG and PNG the decoder reads gives the pixels Pillow gives (torchvision's ImageFolder loader),
// byte for byte, as RGB and as grey: baseline, 4:4:4, progressive, grey and CMYK JPEGs; RGB, grey, RGBA,
// grey+alpha, palette (with transparency), 1-bit and 16-bit PNGs. Bad files are refused, naming the file.
// The images and Pillow's pixels are made by make_test_images.py with Debian's python3-pil.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "images/image_decoding.h"
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
    s_dir = (fs::temp_directory_path() / ("wb-test-images-" + std::to_string(::getpid()))).string();
    fs::remove_all(s_dir);
    const std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                                "/tests/backend/images/make_test_images.py " + s_dir;
    ASSERT_EQ(std::system(command.c_str()), 0) << command << " (needs python3-pil and python3-numpy: scripts/setup.sh)";
  }
  static void TearDownTestSuite() { fs::remove_all(s_dir); }

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
  for (const char* name : {"rgb.png", "grey.png", "rgba.png", "grey_alpha.png", "palette.png",
                           "palette_transparent.png", "bilevel.png", "grey16.png", "rgb16.png", "rgba16.png"}) {
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
  const std::vector<std::pair<std::string, std::string>> cases = {
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
    // The next file on the same thread (a loader worker's next sample) still decodes: a refused file leaves the
    // thread's decompressor usable.
    EXPECT_EQ(readImageFile((fs::path(s_dir) / "progressive.jpg").string(), 3).channels, 3) << "after " << name;
  }
}

}  // namespace
}  // namespace wb
