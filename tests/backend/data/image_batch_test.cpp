// Decoded images become the batch a step takes with torchvision's numbers: collated to uint8 [N, C, H, W],
// then ToTensor and Normalize — compared bit for bit with Debian's torchvision on the same pixels, RGB and
// grey.

#include "data/image_batch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "data/recycled_batch_memory.h"
#include "support/temporary_folder.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

DecodedImage pattern(int64_t height, int64_t width, int channels, int seed) {
  DecodedImage image{height, width, channels, PixelBytes(static_cast<size_t>(height * width * channels))};
  for (size_t i = 0; i < image.pixels.size(); ++i)
    image.pixels[i] = static_cast<uint8_t>((i * 37 + seed * 101) % 256);
  return image;
}

std::string commaList(const std::vector<double>& values) {
  std::string out;
  for (double x : values) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

TEST(ImageBatch, CollatedAndNormalizedAsTorchvision) {
  const test::TemporaryFolder folder("test-batch");
  const std::string dir = folder.path();
  struct Case {
    int channels;
    std::vector<double> mean, std;
    std::vector<DecodedImage> images;
    torch::Tensor batch, normalized;
  };
  std::vector<Case> cases = {{3, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}, {}, {}, {}},
                             {1, {0.2860}, {0.3530}, {}, {}, {}}};
  for (Case& c : cases) {
    c.images = {pattern(5, 7, c.channels, 1), pattern(5, 7, c.channels, 2)};
    c.batch = collateImages(c.images);
    ASSERT_EQ(c.batch.sizes(), (std::vector<int64_t>{2, c.channels, 5, 7}));
    c.normalized = normalizeImageBatch(c.batch, c.mean, c.std);
    // The workers' one-pass form gives the same numbers.
    EXPECT_TRUE(torch::equal(collateNormalized(c.images, c.mean, c.std), c.normalized));
    for (size_t i = 0; i < c.images.size(); ++i) {
      const std::string name = dir + "/c" + std::to_string(c.channels) + "_" + std::to_string(i);
      std::ofstream(name + ".raw", std::ios::binary)
          .write(reinterpret_cast<const char*>(c.images[i].pixels.data()),
                 static_cast<std::streamsize>(c.images[i].pixels.size()));
      std::ofstream(name + ".size") << 7 << " " << 5 << " " << c.channels << "\n";
      std::ofstream(name + ".norm") << commaList(c.mean) << ";" << commaList(c.std);
    }
  }
  const std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                              "/tests/backend/data/to_tensor_like_torchvision.py " + dir;
  ASSERT_EQ(std::system(command.c_str()), 0) << command << " (needs python3-torchvision: scripts/setup.sh)";
  for (const Case& c : cases) {
    for (size_t i = 0; i < c.images.size(); ++i) {
      const auto index = static_cast<int64_t>(i);
      std::ifstream in(dir + "/c" + std::to_string(c.channels) + "_" + std::to_string(i) + ".float",
                       std::ios::binary);
      const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      ASSERT_EQ(bytes.size(), static_cast<size_t>(c.channels * 5 * 7 * 4));
      const torch::Tensor theirs =
          torch::from_blob(const_cast<char*>(bytes.data()), {c.channels, 5, 7}, torch::kFloat32).clone();
      EXPECT_TRUE(torch::equal(c.normalized[index], theirs))
          << "largest difference " << (c.normalized[index] - theirs).abs().max().item<float>();
      // The collated batch holds the pixels channel-first.
      EXPECT_EQ(c.batch[index][c.channels - 1][4][6].item<int>(),
                c.images[i].pixels[static_cast<size_t>((4 * 7 + 6) * c.channels + c.channels - 1)]);
    }
  }
  EXPECT_THROW(collateImages({pattern(5, 7, 3, 1), pattern(5, 6, 3, 1)}), std::invalid_argument);
}

TEST(ImageBatch, RecycledMemoryHoldsTheSameNumbersAndComesBack) {
  const std::vector<DecodedImage> images = {pattern(6, 9, 3, 1), pattern(6, 9, 3, 2)};
  const std::vector<double> mean{0.5, 0.4, 0.3}, std{0.2, 0.25, 0.3};
  const torch::Tensor fresh = collateNormalized(images, mean, std);
  std::shared_ptr<RecycledBatchMemory> memory = RecycledBatchMemory::create(1);
  const void* block = nullptr;
  {
    const torch::Tensor batch = collateNormalized(images, mean, std, false, memory.get());
    EXPECT_TRUE(torch::equal(batch, fresh));
    block = batch.data_ptr();
    EXPECT_EQ(memory->idleBlocks(), 0u);
  }
  EXPECT_EQ(memory->idleBlocks(), 1u) << "the dropped batch's memory comes back";
  torch::Tensor again = collateNormalized(images, mean, std, false, memory.get());
  EXPECT_EQ(again.data_ptr(), block) << "the next batch of that size reuses it";
  EXPECT_TRUE(torch::equal(again, fresh));
  torch::Tensor other = collateNormalized(images, mean, std, false, memory.get());
  EXPECT_NE(other.data_ptr(), block) << "a block in use is not handed out twice";
  EXPECT_TRUE(torch::equal(other, fresh));
  other = torch::Tensor();
  torch::Tensor kept = again.clone();
  again = torch::Tensor();
  EXPECT_EQ(memory->idleBlocks(), 1u) << "at most `kept` idle blocks stay";
  // A batch may outlive its loader (the step still holds it): the memory stays valid and is freed after.
  torch::Tensor outliving = collateNormalized(images, mean, std, false, memory.get());
  memory.reset();
  EXPECT_TRUE(torch::equal(outliving, kept));
}

// A batch past the caches (here 64 x 3 x 127 x 129 floats, 12.6 MB) is written with streaming stores; a plane
// of 127 x 129 is not a multiple of 4 floats, so the unaligned head and tail take the ordinary path. The
// numbers are those of the uint8 batch normalized with torch's operations (checked against torchvision
// above), whatever order the images are put in.
TEST(ImageBatch, LargeBatchesWrittenImageByImageHoldTheSameNumbers) {
  const std::vector<double> mean{0.485, 0.456, 0.406}, std{0.229, 0.224, 0.225};
  for (const auto& [height, width] : {std::pair<int64_t, int64_t>{127, 129}, {128, 128}}) {
    std::vector<DecodedImage> images;
    for (int i = 0; i < 64; ++i) images.push_back(pattern(height, width, 3, i));
    const torch::Tensor expected = normalizeImageBatch(collateImages(images), mean, std);
    EXPECT_TRUE(torch::equal(collateNormalized(images, mean, std), expected)) << height << "x" << width;
    ImageBatchWriter backwards(64, ImageBatchWriter::Form::Normalized, mean, std);
    for (int64_t i = 63; i >= 0; --i) backwards.put(i, images[static_cast<size_t>(i)]);
    EXPECT_TRUE(torch::equal(backwards.take(), expected)) << height << "x" << width;
  }
  ImageBatchWriter partial(2, ImageBatchWriter::Form::Uint8);
  partial.put(0, pattern(5, 7, 3, 1));
  EXPECT_THROW(partial.put(1, pattern(5, 6, 3, 1)), std::invalid_argument);
  EXPECT_THROW(partial.put(2, pattern(5, 7, 3, 1)), std::out_of_range);
  EXPECT_THROW(partial.take(), std::logic_error) << "a batch missing an image is not handed out";
}

}  // namespace
}  // namespace wb
