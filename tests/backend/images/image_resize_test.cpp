// Resize(int), CenterCrop, F.resized_crop and F.hflip give the bytes torchvision gives on its loader's PIL
// images (Debian's python3-torchvision makes them): shrinking (Pillow's filter widens: antialiased),
// shrinking a lot, enlarging, a side already right, a crop whose offsets are halves (rounded to even), a crop
// larger than the image (padded); RandomResizedCrop's boxes lie in the image and follow the seed, and its
// fallback is torchvision's.

#include "images/image_resize.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <tuple>

#include "images/image_augment.h"
#include "support/temporary_folder.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

class ImageResize : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = test::folderForThisTest("test-resize") + "/images";  // removed when the suite ends
    const std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                                "/tests/backend/images/resize_like_torchvision.py " + s_dir;
    ASSERT_EQ(std::system(command.c_str()), 0) << command << " (needs python3-torchvision: scripts/setup.sh)";
  }

  static std::vector<uint8_t> bytes(const std::string& name) {
    std::ifstream in(fs::path(s_dir) / name, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  static DecodedImage source(const std::string& name) {
    std::ifstream size(fs::path(s_dir) / (name + ".size"));
    DecodedImage image;
    size >> image.width >> image.height >> image.channels;
    const std::vector<uint8_t> raw = bytes(name + ".raw");
    image.pixels.assign(raw.begin(), raw.end());
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

TEST_F(ImageResize, ResizedCropAndFlipAsTorchvision) {
  const std::vector<std::tuple<std::string, CropBox, int64_t, int64_t>> crops = {
      {"rcrop_a", {3, 5, 20, 30}, 16, 16},
      {"rcrop_b", {0, 0, 29, 17}, 40, 24},
      {"rcrop_c", {10, 2, 7, 9}, 32, 32}};
  for (const char* image : {"rgb", "grey"}) {
    const DecodedImage in = source(image);
    for (const auto& [name, box, height, width] : crops) {
      expectTorchvision(resizedCrop(in, box, height, width), std::string(image) + "-" + name);
    }
    DecodedImage flipped = in;
    flipHorizontally(flipped);
    expectTorchvision(flipped, std::string(image) + "-hflip");
  }
}

TEST_F(ImageResize, RandomResizedCropBoxes) {
  // Inside the image, within the area share and ratio range (give or take the rounding), the same for a seed.
  std::mt19937_64 a(42), b(42);
  const ResizedCropRange range;
  for (int i = 0; i < 500; ++i) {
    const CropBox box = randomResizedCropBox(37, 53, range, a);
    const CropBox again = randomResizedCropBox(37, 53, range, b);
    EXPECT_EQ(box.top, again.top);
    EXPECT_EQ(box.width, again.width);
    ASSERT_GT(box.height, 0);
    ASSERT_GT(box.width, 0);
    EXPECT_LE(box.top + box.height, 37);
    EXPECT_LE(box.left + box.width, 53);
    const double share = static_cast<double>(box.height * box.width) / (37.0 * 53.0);
    EXPECT_GE(share, 0.08 * 0.5);
    EXPECT_LE(share, 1.0);
  }
  // No try can fit (a share of 2 to 3 times the area): torchvision's central fallback, box for box.
  std::ifstream boxes(fs::path(s_dir) / "fallback_boxes.txt");
  int64_t height, width, top, left, h, w;
  int checked = 0;
  while (boxes >> height >> width >> top >> left >> h >> w) {
    const CropBox box = randomResizedCropBox(height, width, {2.0, 3.0, 0.75, 4.0 / 3.0}, a);
    EXPECT_EQ(box.top, top) << height << "x" << width;
    EXPECT_EQ(box.left, left) << height << "x" << width;
    EXPECT_EQ(box.height, h) << height << "x" << width;
    EXPECT_EQ(box.width, w) << height << "x" << width;
    ++checked;
  }
  EXPECT_EQ(checked, 5);
}

}  // namespace
}  // namespace wb
