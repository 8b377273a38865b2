// loadDataset and probeDataShape on the real Fashion-MNIST files: limits, the validation split,
// normalization with the training statistics, and messages for missing data.

#include "data/dataset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "data/dataset_readers.h"
#include "data_test_support.h"
#include "support/test_helpers.h"
#include "workbench/data_preview.h"

namespace wb {
namespace {

using test::expectDataError;
using test::TempDir;

DataConfig fashionConfig(int64_t limit) {
  DataConfig config;
  config.dataset = DatasetName::FashionMnist;
  config.limit = limit;
  config.val_fraction = 0.1;
  return config;
}

TEST(FashionMnistDataset, LimitSplitAndNormalize) {
  const Dataset dataset = loadDataset(fashionConfig(1000), 42);
  EXPECT_EQ(dataset.description, "Fashion-MNIST: 900 train, 100 val, 10000 test, 1x28x28, 10 classes");
  EXPECT_EQ(dataset.train.x.sizes(), torch::IntArrayRef({900, 1, 28, 28}));
  EXPECT_EQ(dataset.val.x.sizes(), torch::IntArrayRef({100, 1, 28, 28}));
  EXPECT_EQ(dataset.test.x.sizes(), torch::IntArrayRef({10000, 1, 28, 28}));
  EXPECT_EQ(dataset.train.x.scalar_type(), torch::kFloat32);
  EXPECT_EQ(dataset.train.y.scalar_type(), torch::kLong);
  EXPECT_EQ(dataset.sample_shape, (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(dataset.num_classes, 10);
  ASSERT_EQ(dataset.class_names.size(), 10u);
  EXPECT_EQ(dataset.class_names[0], "T-shirt/top");
  EXPECT_EQ(dataset.class_names[9], "Ankle boot");

  // The training part is standardized per channel; the statistics are in pixel/255 units.
  EXPECT_NEAR(dataset.train.x.mean().item<double>(), 0.0, 1e-4);
  EXPECT_NEAR(dataset.train.x.std(/*unbiased=*/false).item<double>(), 1.0, 1e-4);
  ASSERT_EQ(dataset.normalization.mean.size(), 1u);
  EXPECT_GT(dataset.normalization.mean[0], 0.2);
  EXPECT_LT(dataset.normalization.mean[0], 0.4);

  // Train and validation together are exactly the first 1000 training images, each once.
  const RawSplit raw = readIdx(test::fashionFile("train-images-idx3-ubyte.gz"),
                               test::fashionFile("train-labels-idx1-ubyte.gz"));
  const auto denormalize = [&](const torch::Tensor& x) {
    return (x * dataset.normalization.std[0] + dataset.normalization.mean[0])
        .mul(255)
        .round()
        .to(torch::kUInt8);
  };
  const torch::Tensor pixels = denormalize(torch::cat({dataset.train.x, dataset.val.x}));
  const torch::Tensor labels = torch::cat({dataset.train.y, dataset.val.y});
  const torch::Tensor first = raw.inputs.narrow(0, 0, 1000);
  // Match each returned image to its source row through a per-image fingerprint.
  const torch::Tensor weights = torch::arange(784, torch::kLong).remainder(97).add(1);
  const torch::Tensor source_keys = (first.view({1000, 784}).to(torch::kLong) * weights).sum(1);
  const torch::Tensor keys = (pixels.view({1000, 784}).to(torch::kLong) * weights).sum(1);
  const auto [sorted_source, source_order] = source_keys.sort();
  const auto [sorted_keys, key_order] = keys.sort();
  EXPECT_TRUE(torch::equal(sorted_source, sorted_keys));
  EXPECT_TRUE(torch::equal(raw.labels.narrow(0, 0, 1000).index_select(0, source_order),
                           labels.index_select(0, key_order)));

  // The test split is normalized with the training statistics, not its own.
  const RawSplit raw_test =
      readIdx(test::fashionFile("t10k-images-idx3-ubyte.gz"), test::fashionFile("t10k-labels-idx1-ubyte.gz"));
  EXPECT_TRUE(torch::equal(denormalize(dataset.test.x), raw_test.inputs));
  EXPECT_TRUE(torch::equal(dataset.test.y, raw_test.labels));
}

// A Fashion-MNIST folder whose training files are copies of the (six times smaller) test files.
class SmallFashionFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const std::string split : {"train", "t10k"}) {
      test::writeBytes(m_dir.file(split + "-images-idx3-ubyte.gz"),
                       test::readBytes(test::fashionFile("t10k-images-idx3-ubyte.gz")));
      test::writeBytes(m_dir.file(split + "-labels-idx1-ubyte.gz"),
                       test::readBytes(test::fashionFile("t10k-labels-idx1-ubyte.gz")));
    }
  }
  DataConfig config(int64_t limit) const {
    DataConfig result = fashionConfig(limit);
    result.path = m_dir.path();
    return result;
  }
  TempDir m_dir;
};

TEST_F(SmallFashionFolder, ValidationSplitFollowsTheSeed) {
  const Dataset a = loadDataset(config(500), 1);
  const Dataset b = loadDataset(config(500), 1);
  const Dataset c = loadDataset(config(500), 2);
  EXPECT_EQ(a.val.x.size(0), 50);
  EXPECT_TRUE(torch::equal(a.val.x, b.val.x));
  EXPECT_TRUE(torch::equal(a.train.y, b.train.y));
  EXPECT_FALSE(torch::equal(a.val.x, c.val.x));

  DataConfig no_validation = config(500);
  no_validation.val_fraction = 0;
  const Dataset d = loadDataset(no_validation, 1);
  EXPECT_EQ(d.val.x.sizes(), torch::IntArrayRef({0, 1, 28, 28}));
  EXPECT_EQ(d.train.x.size(0), 500);

  DataConfig everything_held_out = config(500);
  everything_held_out.val_fraction = 1.0;
  EXPECT_THROW(loadDataset(everything_held_out, 1), UserError);
  DataConfig negative_limit = config(-1);
  EXPECT_THROW(loadDataset(negative_limit, 1), UserError);
}

// The Data tab for a dataset held in memory: the training split's class counts and one sample of each class,
// as stored (Fashion-MNIST's test split has 1,000 images of each class).
TEST_F(SmallFashionFolder, PreviewCountsClassesAndShowsASampleOfEach) {
  Experiment experiment;
  experiment.data = config(0);
  const DataPreview preview = previewData(experiment, 10);
  ASSERT_EQ(preview.class_names.size(), 10u);
  EXPECT_EQ(preview.class_names[9], "Ankle boot");
  EXPECT_EQ(preview.class_counts, std::vector<int64_t>(10, 1000));
  ASSERT_EQ(preview.samples.size(), 10u);
  const RawSplit raw =
      readIdx(m_dir.file("train-images-idx3-ubyte.gz"), m_dir.file("train-labels-idx1-ubyte.gz"));
  for (int64_t c = 0; c < 10; ++c) {
    const PreviewSample& sample = preview.samples[static_cast<size_t>(c)];
    EXPECT_EQ(sample.class_name, preview.class_names[static_cast<size_t>(c)]);
    ASSERT_EQ(sample.height * sample.width * sample.channels, 28 * 28);
    const int64_t first = (raw.labels == c).nonzero()[0][0].item<int64_t>();
    const torch::Tensor pixels =
        torch::from_blob(const_cast<uint8_t*>(sample.pixels.data()), {1, 28, 28}, torch::kUInt8);
    EXPECT_TRUE(torch::equal(pixels, raw.inputs[first])) << "class " << c;
  }
  EXPECT_EQ(previewData(experiment, 3).samples.size(), 3u);
}

TEST(FashionMnistDataset, FullTrainingSplitStatistics) {
  const Dataset dataset = loadDataset(fashionConfig(0), 42);
  EXPECT_EQ(dataset.description, "Fashion-MNIST: 54000 train, 6000 val, 10000 test, 1x28x28, 10 classes");
  // The published Fashion-MNIST statistics (mean 0.2860, std 0.3530 over the 60000 training images).
  EXPECT_NEAR(dataset.normalization.mean[0], 0.2860, 2e-3);
  EXPECT_NEAR(dataset.normalization.std[0], 0.3530, 2e-3);
  EXPECT_NEAR(dataset.train.x.mean().item<double>(), 0.0, 1e-3);
}

TEST(FashionMnistDataset, ProbeReadsHeadersQuickly) {
  DataConfig config = fashionConfig(0);
  const DataShape shape = probeDataShape(config);
  EXPECT_EQ(shape.sample_shape, (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(shape.num_classes, 10);
  EXPECT_EQ(shape.train_samples, 60000) << "the stored training split, before limit and validation";
  config.limit = 1000;
  EXPECT_EQ(probeDataShape(config).train_samples, 60000);

  double best_ms = 1e9;
  for (int run = 0; run < 3; ++run) {
    const auto start = std::chrono::steady_clock::now();
    probeDataShape(config);
    best_ms = std::min(
        best_ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  EXPECT_LT(best_ms, 50.0);
}

TEST(FashionMnistDataset, ReadsUncompressedFilesUnderPlainNames) {
  TempDir dir;
  for (const std::string split : {"train", "t10k"}) {
    test::writeBytes(dir.file(split + "-images-idx3-ubyte"),
                     test::gunzipFile(test::fashionFile("t10k-images-idx3-ubyte.gz")));
    test::writeBytes(dir.file(split + "-labels-idx1-ubyte"),
                     test::gunzipFile(test::fashionFile("t10k-labels-idx1-ubyte.gz")));
  }
  DataConfig config = fashionConfig(0);
  config.path = dir.path();
  config.val_fraction = 0.5;
  EXPECT_EQ(probeDataShape(config).train_samples, 10000);
  EXPECT_EQ(loadDataset(config, 0).description,
            "Fashion-MNIST: 5000 train, 5000 val, 10000 test, 1x28x28, 10 classes");
}

TEST(DatasetErrors, MissingFilesSayHowToGetThem) {
  TempDir dir;
  DataConfig config = fashionConfig(0);
  config.path = dir.file("nowhere");
  std::string hint =
      expectDataError([&] { loadDataset(config, 0); },
                      {"Fashion-MNIST", config.path, "does not exist", "train-images-idx3-ubyte"});
  EXPECT_TRUE(test::contains(hint, "apt-get install dataset-fashion-mnist")) << hint;

  config.dataset = DatasetName::Mnist;
  config.path = dir.path();
  test::writeBytes(dir.file("train-images-idx3-ubyte.gz"),
                   test::readBytes(test::fashionFile("train-labels-idx1-ubyte.gz")));
  hint = expectDataError([&] { probeDataShape(config); }, {"MNIST files not found in " + dir.path(),
                                                           "train-labels-idx1-ubyte(.gz)", "t10k-images"});
  EXPECT_TRUE(test::contains(hint, "https://")) << hint;
  EXPECT_EQ(defaultDataPath(DatasetName::Mnist), "/usr/share/datasets/mnist");
  EXPECT_EQ(defaultDataPath(DatasetName::Cifar10), "/usr/share/datasets/cifar10");
  EXPECT_EQ(defaultDataPath(DatasetName::FashionMnist), "/usr/share/datasets/fashion-mnist");
}

}  // namespace
}  // namespace wb
