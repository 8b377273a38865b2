// The CIFAR-10 reader on small batch files written in the real record format.

#include <gtest/gtest.h>

#include <string>

#include "data/dataset.h"
#include "data/dataset_readers.h"
#include "data_test_support.h"

namespace wb {
namespace {

using test::expectDataError;
using test::TempDir;

constexpr int kRecordBytes = 3073;

// Record r: label (r * 3) % 10, pixel p = (r * 7 + p) % 256.
std::string records(int first, int count) {
  std::string bytes;
  for (int r = first; r < first + count; ++r) {
    bytes += static_cast<char>((r * 3) % 10);
    for (int p = 0; p < 3072; ++p) bytes += static_cast<char>((r * 7 + p) % 256);
  }
  return bytes;
}

TEST(Cifar10Reader, ReadsRecordsAcrossFiles) {
  TempDir dir;
  test::writeBytes(dir.file("a.bin"), records(0, 5));
  test::writeBytes(dir.file("b.bin"), records(5, 3));
  const RawSplit split = readCifar10({dir.file("a.bin"), dir.file("b.bin")});
  ASSERT_EQ(split.inputs.sizes(), torch::IntArrayRef({8, 3, 32, 32}));
  EXPECT_EQ(split.inputs.scalar_type(), torch::kUInt8);
  for (int r = 0; r < 8; ++r) {
    EXPECT_EQ(split.labels[r].item<int64_t>(), (r * 3) % 10);
    const torch::Tensor expected =
        (torch::arange(3072, torch::kLong) + r * 7).remainder(256).to(torch::kUInt8).view({3, 32, 32});
    EXPECT_TRUE(torch::equal(split.inputs[r], expected)) << "record " << r;
  }
  // Channel-major: the first 1024 bytes of a record are the red plane.
  EXPECT_EQ(split.inputs[1][1][0][0].item<int>(), (7 + 1024) % 256);
}

TEST(Cifar10Reader, RejectsPartialRecords) {
  TempDir dir;
  const std::string file = dir.file("data_batch_1.bin");
  test::writeBytes(file, records(0, 2) + "xyz");
  expectDataError([&] { readCifar10({file}); },
                  {file, "not a multiple of the 3073-byte", "3 bytes left over"});
  test::writeBytes(file, "");
  expectDataError([&] { readCifar10({file}); }, {file, "is empty"});
  expectDataError([&] { readCifar10({dir.file("missing.bin")}); }, {"missing.bin", "not found"});
}

TEST(Cifar10Reader, RejectsLabelsAboveNine) {
  TempDir dir;
  std::string bytes = records(0, 4);
  bytes[2 * kRecordBytes] = 10;
  const std::string file = dir.file("batch.bin");
  test::writeBytes(file, bytes);
  expectDataError([&] { readCifar10({file}); }, {file, "record 2 has label 10", "0..9"});
}

TEST(Cifar10Dataset, LoadsFromTheExtractedArchiveFolder) {
  TempDir dir;
  const std::string batches = dir.path() + "/cifar-10-batches-bin";
  for (int i = 1; i <= 5; ++i)
    test::writeBytes(batches + "/data_batch_" + std::to_string(i) + ".bin", records(i * 4, 4));
  test::writeBytes(batches + "/test_batch.bin", records(100, 6));
  DataConfig config;
  config.dataset = DatasetName::Cifar10;
  config.path = dir.path();
  config.val_fraction = 0.25;

  const DataShape shape = probeDataShape(config);
  EXPECT_EQ(shape.sample_shape, (std::vector<int64_t>{3, 32, 32}));
  EXPECT_EQ(shape.num_classes, 10);
  EXPECT_EQ(shape.train_samples, 20);

  const Dataset dataset = loadDataset(config, 7);
  EXPECT_EQ(dataset.description, "CIFAR-10: 15 train, 5 val, 6 test, 3x32x32, 10 classes");
  EXPECT_EQ(dataset.class_names.front(), "airplane");
  EXPECT_EQ(dataset.normalization.mean.size(), 3u);
  const torch::Tensor channel_mean = dataset.train.x.mean({0, 2, 3});
  EXPECT_TRUE(torch::allclose(channel_mean, torch::zeros({3}), 0, 1e-4)) << channel_mean;
}

TEST(Cifar10Dataset, MissingFilesNameWhatAndWhere) {
  TempDir dir;
  test::writeBytes(dir.file("data_batch_1.bin"), records(0, 1));
  DataConfig config;
  config.dataset = DatasetName::Cifar10;
  config.path = dir.path();
  const std::string hint =
      expectDataError([&] { loadDataset(config, 0); },
                      {dir.path(), "data_batch_2.bin", "data_batch_5.bin", "test_batch.bin"});
  EXPECT_TRUE(test::contains(hint, "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz")) << hint;
  EXPECT_TRUE(test::contains(hint, dir.path())) << hint;
}

}  // namespace
}  // namespace wb
