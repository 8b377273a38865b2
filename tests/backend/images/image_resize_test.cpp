// Resize(int) and CenterCrop give the bytes torchvision gives on its loader's PIL images (Debian's
// python3-torchvision makes them): shrinking (Pillow's filter widens: antialiased), shrinking a lot, enlarging,
// a side already right, a crop whose offsets are halves (rounded to even), a crop larger than the image (padded).

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "images/image_resize.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

class ImageResize : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = (fs::temp_directory_path() / ("wb-test-resize-" + std::to_string(::getpid()))).string();
    const std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                                "/tests/backend/images/resize_like_torchvision.py " + s_dir;
    ASSERT_EQ(std::system(command.c_str()), 0) << command << " (needs python3-torchvision: scripts/setup.sh)";
  }
  static void TearDownTestSuite() { fs::remove_all(s_dir); }

  static std::vector<uint8_t> bytes(const std::string& name) {
    std::ifstream in(fs::path(s_dir) / name, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  static DecodedImage source(const std::string& name) {
    std::ifstream size(fs::path(s_dir) / (name + ".size"));
    DecodedImage image;
    size >> image.width >> image.height >> image.channels;
    image.pixels = bytes(name + ".raw");
    return image;
  }
  static void expectTorchvision(const DecodedImage& ours, const std::string& name) {
    std::ifstream size(fs::path(s_dir) / (name + ".size"));
    int64_t width = 0, height = 0;
    size >> width >> height;
    ASSERT_GT(width, 0) << name;
    EXPECT_EQ(ours.width, width) << name;
    EXPECT_EQ(ours.height, height) << name;
    const std::vector<uint8_t> theirs = bytes(name + ".raw");
    ASSERT_EQ(ours.pixels.size(), theirs.size()) << name;
    size_t differing = 0;
    for (size_t i = 0; i < theirs.size(); ++i) differing += ours.pixels[i] != theirs[i];
    EXPECT_EQ(differing, 0u) << name << ": " << differing << " of " << theirs.size() << " bytes differ";
  }
  static std::string s_dir;
};

std::string ImageResize::s_dir;

TEST_F(ImageResize, ResizeShorterSideAsTorchvision) {
  for (const char* image : {"rgb", "grey"}) {
    const DecodedImage in = source(image);
    for (const int64_t size : {24, 7, 90, 37}) {
      expectTorchvision(resizeShorterSide(in, size), std::string(image) + "-resize" + std::to_string(size));
    }
  }
}

TEST_F(ImageResize, CenterCropAsTorchvision) {
  for (const char* image : {"rgb", "grey"}) {
    const DecodedImage in = source(image);
    expectTorchvision(centerCrop(in, 20, 20), std::string(image) + "-crop20");
    expectTorchvision(centerCrop(in, 30, 44), std::string(image) + "-crop_odd");
    expectTorchvision(centerCrop(in, 41, 60), std::string(image) + "-crop_pad");
  }
}

}  // namespace
}  // namespace wb
