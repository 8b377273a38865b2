// The IDX reader on the real Fashion-MNIST files, and on damaged copies of them made in a temporary folder.

#include <gtest/gtest.h>

#include <string>

#include "data/dataset_readers.h"
#include "data_test_support.h"
#include "support/test_helpers.h"

namespace wb {
namespace {

using test::expectDataError;
using test::TempDir;

// An order-sensitive checksum that the Python reference computes the same way: per-sample sums weighted by
// the sample's position (mod 1009) plus per-position sums weighted by the position within a sample. A swap of
// samples or of pixels within samples changes it; it needs no temporaries the size of the data.
int64_t positionalChecksum(const torch::Tensor& values) {
  const torch::Tensor table = values.reshape({values.size(0), -1});
  const torch::Tensor sample_sums = table.sum(1, false, torch::kLong);
  const torch::Tensor position_sums = table.sum(0, false, torch::kLong);
  return (sample_sums * torch::arange(table.size(0), torch::kLong).remainder(1009).add(1))
             .sum()
             .item<int64_t>() +
         (position_sums * torch::arange(table.size(1), torch::kLong).add(1)).sum().item<int64_t>();
}

TEST(IdxReader, ReadsRealFashionMnistLikeNumpy) {
  TempDir dir;
  const std::string reference = test::runPython(
      "import gzip, numpy as np\n"
      "def load(name, offset):\n"
      "    return np.frombuffer(gzip.open('" WB_FASHION_MNIST_DIR
      "/' + name).read(), np.uint8, offset=offset)\n"
      "def checksum(a, n):\n"
      "    t = a.reshape(n, -1)\n"
      "    return int((t.sum(1, dtype=np.int64) * (np.arange(n) % 1009 + 1)).sum() +\n"
      "               (t.sum(0, dtype=np.int64) * (np.arange(t.shape[1]) + 1)).sum())\n"
      "for images, labels in (('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz'),\n"
      "                       ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz')):\n"
      "    x = load(images, 16); y = load(labels, 8)\n"
      "    print(int(x.sum(dtype=np.int64)), checksum(x, y.size), checksum(y, y.size))\n",
      dir);
  int64_t expected[2][3];
  ASSERT_EQ(std::sscanf(reference.c_str(), "%ld %ld %ld %ld %ld %ld", &expected[0][0], &expected[0][1],
                        &expected[0][2], &expected[1][0], &expected[1][1], &expected[1][2]),
            6)
      << reference;

  const RawSplit train = readIdx(test::fashionFile("train-images-idx3-ubyte.gz"),
                                 test::fashionFile("train-labels-idx1-ubyte.gz"));
  EXPECT_EQ(train.inputs.sizes(), torch::IntArrayRef({60000, 1, 28, 28}));
  EXPECT_EQ(train.inputs.scalar_type(), torch::kUInt8);
  EXPECT_EQ(train.labels.sizes(), torch::IntArrayRef({60000}));
  EXPECT_EQ(train.labels.scalar_type(), torch::kLong);
  EXPECT_TRUE(torch::equal(torch::bincount(train.labels), torch::full({10}, 6000, torch::kLong)));
  EXPECT_EQ(train.inputs.sum(torch::kLong).item<int64_t>(), expected[0][0]);
  EXPECT_EQ(positionalChecksum(train.inputs), expected[0][1]);
  EXPECT_EQ(positionalChecksum(train.labels), expected[0][2]);

  const RawSplit test =
      readIdx(test::fashionFile("t10k-images-idx3-ubyte.gz"), test::fashionFile("t10k-labels-idx1-ubyte.gz"));
  EXPECT_EQ(test.inputs.sizes(), torch::IntArrayRef({10000, 1, 28, 28}));
  EXPECT_TRUE(torch::equal(torch::bincount(test.labels), torch::full({10}, 1000, torch::kLong)));
  EXPECT_EQ(test.inputs.sum(torch::kLong).item<int64_t>(), expected[1][0]);
  EXPECT_EQ(positionalChecksum(test.inputs), expected[1][1]);
  EXPECT_EQ(positionalChecksum(test.labels), expected[1][2]);
}

TEST(IdxReader, HeaderOnly) {
  EXPECT_EQ(readIdxImageHeader(test::fashionFile("train-images-idx3-ubyte.gz")),
            (std::vector<int64_t>{60000, 28, 28}));
}

TEST(IdxReader, GzippedAndPlainCopiesReadTheSame) {
  TempDir dir;
  // Uncompressed copies under names that still end in .gz: compression is recognised by content.
  const std::string images = dir.file("images.gz"), labels = dir.file("labels.gz");
  test::writeBytes(images, test::gunzipFile(test::fashionFile("t10k-images-idx3-ubyte.gz")));
  test::writeBytes(labels, test::gunzipFile(test::fashionFile("t10k-labels-idx1-ubyte.gz")));
  const RawSplit plain = readIdx(images, labels);
  const RawSplit gzipped =
      readIdx(test::fashionFile("t10k-images-idx3-ubyte.gz"), test::fashionFile("t10k-labels-idx1-ubyte.gz"));
  EXPECT_TRUE(torch::equal(plain.inputs, gzipped.inputs));
  EXPECT_TRUE(torch::equal(plain.labels, gzipped.labels));
}

// A small valid pair cut from the real test split (100 images), as raw bytes to damage.
class DamagedIdx : public ::testing::Test {
 protected:
  static constexpr int kImages = 100;
  static constexpr int kPixels = kImages * 28 * 28;

  void SetUp() override {
    const std::string images = test::gunzipFile(test::fashionFile("t10k-images-idx3-ubyte.gz"));
    const std::string labels = test::gunzipFile(test::fashionFile("t10k-labels-idx1-ubyte.gz"));
    m_images = images.substr(0, 16 + kPixels);
    m_images[6] = 0;  // N = 100 (big-endian bytes 4..7)
    m_images[7] = kImages;
    m_labels = labels.substr(0, 8 + kImages);
    m_labels[6] = 0;
    m_labels[7] = kImages;
    m_good_labels = write("labels", m_labels);
  }

  std::string write(const std::string& name, const std::string& bytes) {
    const std::string file = m_dir.file(name);
    test::writeBytes(file, bytes);
    return file;
  }

  TempDir m_dir;
  std::string m_images, m_labels, m_good_labels;
};

TEST_F(DamagedIdx, IntactCopiesRead) {
  const RawSplit plain = readIdx(write("images", m_images), m_good_labels);
  const RawSplit gzipped =
      readIdx(write("images.gz", test::gzipBytes(m_images)), write("l.gz", test::gzipBytes(m_labels)));
  EXPECT_EQ(plain.inputs.size(0), kImages);
  EXPECT_TRUE(torch::equal(plain.inputs, gzipped.inputs));
  EXPECT_TRUE(torch::equal(plain.labels, gzipped.labels));
}

TEST_F(DamagedIdx, MissingFile) {
  const std::string missing = m_dir.file("no-such-images");
  expectDataError([&] { readIdx(missing, m_good_labels); }, {missing, "not found"});
  expectDataError([&] { readIdx(m_dir.path(), m_good_labels); }, {m_dir.path(), "is a folder"});
}

TEST_F(DamagedIdx, WrongMagic) {
  std::string zip = m_images;
  zip.replace(0, 4, "PK\x03\x04");
  const std::string file = write("zip", zip);
  expectDataError([&] { readIdx(file, m_good_labels); },
                  {file, "not an IDX file", "0x504b0304", "0x00000803"});

  std::string floats = m_images;
  floats[2] = 0x0D;
  const std::string float_file = write("floats", floats);
  expectDataError([&] { readIdx(float_file, m_good_labels); }, {float_file, "32-bit float"});

  std::string four_dims = m_images;
  four_dims[3] = 4;
  const std::string dims_file = write("dims", four_dims);
  expectDataError([&] { readIdx(dims_file, m_good_labels); }, {dims_file, "has 4 dimensions"});

  expectDataError([&] { readIdx(write("short", "\x00\x00"), m_good_labels); }, {"too short"});
}

TEST_F(DamagedIdx, SwappedImagesAndLabels) {
  const std::string images = write("images", m_images);
  expectDataError([&] { readIdx(m_good_labels, images); },
                  {m_good_labels, "is a labels file", "not an images file"});
  expectDataError([&] { readIdx(images, images); }, {images, "is an images file", "not a labels file"});
}

TEST_F(DamagedIdx, TruncatedPayload) {
  const std::string cut = m_images.substr(0, m_images.size() - 50);
  const std::string plain = write("plain", cut);
  expectDataError([&] { readIdx(plain, m_good_labels); },
                  {plain, "truncated: expected 78400 bytes of pixels, found 78350"});
  const std::string gzipped = write("gzipped", test::gzipBytes(cut));
  expectDataError([&] { readIdx(gzipped, m_good_labels); },
                  {gzipped, "truncated: expected 78400 bytes of pixels, found 78350"});
  const std::string labels = write("cut-labels", m_labels.substr(0, m_labels.size() - 1));
  expectDataError([&] { readIdx(write("images", m_images), labels); },
                  {labels, "truncated: expected 100 bytes of labels, found 99"});
}

TEST_F(DamagedIdx, TrailingBytes) {
  const std::string longer = m_images + "garbage";
  const std::string plain = write("plain", longer);
  expectDataError([&] { readIdx(plain, m_good_labels); }, {plain, "7 trailing bytes"});
  const std::string gzipped = write("gzipped", test::gzipBytes(longer));
  expectDataError([&] { readIdx(gzipped, m_good_labels); }, {gzipped, "7 trailing bytes"});
}

TEST_F(DamagedIdx, MismatchedCounts) {
  std::string labels = m_labels.substr(0, m_labels.size() - 1);
  labels[7] = kImages - 1;
  const std::string images = write("images", m_images);
  const std::string fewer = write("fewer-labels", labels);
  expectDataError([&] { readIdx(images, fewer); }, {images, fewer, "100 images", "99 labels"});
}

TEST_F(DamagedIdx, CorruptGzipStream) {
  std::string compressed = test::gzipBytes(m_images);
  for (size_t i = compressed.size() / 2; i < compressed.size() / 2 + 32; ++i)
    compressed[i] = static_cast<char>(~compressed[i]);
  const std::string corrupt = write("corrupt.gz", compressed);
  expectDataError([&] { readIdx(corrupt, m_good_labels); }, {corrupt, "corrupt gzip data"});

  const std::string whole = test::gzipBytes(m_images);
  const std::string cut = write("cut.gz", whole.substr(0, whole.size() / 2));
  expectDataError([&] { readIdx(cut, m_good_labels); }, {cut, "gzip stream ends early"});
}

TEST_F(DamagedIdx, ImplausibleHeader) {
  std::string huge = m_images;
  huge[4] = 0x7f;  // N = 0x7f000064 images
  const std::string gzipped = write("huge.gz", test::gzipBytes(huge));
  expectDataError([&] { readIdx(gzipped, m_good_labels); }, {gzipped, "gzip file can hold"});
  const std::string plain = write("huge", huge);
  expectDataError([&] { readIdx(plain, m_good_labels); }, {plain, "truncated"});

  std::string wide = m_images;
  wide[12] = 0x7f;  // rows = 0x7f00001c
  const std::string wide_file = write("wide", wide);
  expectDataError([&] { readIdx(wide_file, m_good_labels); }, {wide_file, "implausible image size"});
}

}  // namespace
}  // namespace wb
