// data.dataset "image_folder": a folder of the user's JPEG and PNG files read as torchvision reads it — the
// same classes, the same input tensors bit for bit (ImageFolder's loader, Resize, CenterCrop, ToTensor,
// Normalize with the training files' statistics), batches that do not depend on the worker count and resume
// mid-epoch, the statistics kept in the folder's sidecar, and every bad input named.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "data/batch_loader.h"
#include "data/dataset.h"
#include "data_test_support.h"
#include "support/image_folder.h"
#include "workbench/data_preview.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

// 10 classes x 12 Fashion-MNIST garments as colour JPEG and PNG files of different sizes, made once.
const std::string& sharedFolder() {
  static TempDir dir;
  static const std::string root = [] {
    const std::string path = dir.file("garments");
    test::makeGarmentFolder(path, 12);
    return path;
  }();
  return root;
}

// A copy of the shared folder the test may change.
std::string copyOfFolder(const TempDir& dir) {
  const std::string copy = dir.file("copy");
  fs::copy(sharedFolder(), copy, fs::copy_options::recursive);
  return copy;
}

DataConfig imageFolderConfig(const std::string& root) {
  DataConfig config;
  config.dataset = DatasetName::ImageFolder;
  config.path = root;
  config.images.resize = 36;
  config.images.crop = 32;
  config.val_fraction = 0.2;
  config.test_fraction = 0.25;
  config.workers = 2;
  return config;
}

std::vector<std::string> splitFiles(const DataSplit& split) {
  std::vector<std::string> files;
  for (int64_t i = 0; i < split.size(); ++i) files.push_back(split.source->sampleName(i));
  return files;
}

std::string readWholeFile(const std::string& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<double> parsedNumbers(const std::string& text) {
  std::vector<double> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) values.push_back(std::stod(item));
  return values;
}

std::string folderNumberList(const std::vector<double>& values) {
  std::ostringstream text;
  text.precision(17);
  for (size_t i = 0; i < values.size(); ++i) text << (i ? "," : "") << values[i];
  return text.str();
}

TEST(ImageFolderDataset, ClassesSplitsStatisticsAndInputsAreTorchvisions) {
  TempDir work;
  const DataConfig config = imageFolderConfig(copyOfFolder(work));
  const Dataset data = loadDataset(config, 11);
  ASSERT_EQ(data.num_classes, 10);
  EXPECT_EQ(data.class_names.front(), "Ankle_boot");  // sorted by name, as ImageFolder sorts
  EXPECT_EQ(data.sample_shape, (std::vector<int64_t>{3, 32, 32}));
  EXPECT_EQ(data.test.size(), 30);  // round(0.25 * 120)
  EXPECT_EQ(data.val.size(), 18);   // round(0.2 * 90)
  EXPECT_EQ(data.train.size(), 72);
  EXPECT_FALSE(data.train.inMemory());

  const std::string folder = work.file("reference");
  fs::create_directories(folder);
  std::ofstream(folder + "/settings") << "36 32 3\n";
  std::ofstream train(folder + "/train.txt");
  for (const auto& file : splitFiles(data.train)) train << file << "\n";
  train.close();
  std::ofstream eval(folder + "/eval.txt");
  for (const auto& file : splitFiles(data.test)) eval << file << "\n";
  eval.close();
  std::ofstream(folder + "/norm") << folderNumberList(data.normalization.mean) << ";"
                                  << folderNumberList(data.normalization.std);
  const std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                              "/tests/backend/data/image_folder_like_torchvision.py " + config.path + " " +
                              folder;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  std::string classes;
  for (const auto& name : data.class_names) classes += name + "\n";
  EXPECT_EQ(readWholeFile(folder + "/classes.txt"), classes);
  const std::string stats = readWholeFile(folder + "/stats.txt");
  const std::vector<double> mean = parsedNumbers(stats.substr(0, stats.find(';')));
  const std::vector<double> deviation = parsedNumbers(stats.substr(stats.find(';') + 1));
  ASSERT_EQ(mean.size(), 3u);
  for (size_t c = 0; c < 3; ++c) {
    EXPECT_NEAR(data.normalization.mean[c], mean[c], 1e-6) << "channel " << c;
    EXPECT_NEAR(data.normalization.std[c], deviation[c], 1e-6) << "channel " << c;
  }
  const std::string bytes = readWholeFile(folder + "/eval.float");
  ASSERT_EQ(bytes.size(), static_cast<size_t>(30 * 3 * 32 * 32 * 4));
  const torch::Tensor theirs =
      torch::from_blob(const_cast<char*>(bytes.data()), {30, 3, 32, 32}, torch::kFloat32).clone();
  const torch::Tensor ours = data.test.inputs(0, 30);
  EXPECT_TRUE(torch::equal(ours, theirs))
      << "largest difference " << (ours - theirs).abs().max().item<float>();

  // Labels follow the class folders.
  for (int64_t i = 0; i < data.test.size(); ++i) {
    const std::string file = data.test.source->sampleName(i);
    const std::string class_name = fs::path(file).parent_path().filename().string();
    EXPECT_EQ(data.class_names[static_cast<size_t>(data.test.y[i].item<int64_t>())], class_name);
  }
}

std::vector<Batch> folderEpoch(BatchLoader& loader, int64_t e, int64_t first = 0) {
  loader.startEpoch(e, first);
  std::vector<Batch> batches;
  while (auto batch = loader.next()) batches.push_back(*batch);
  return batches;
}

TEST(ImageFolderDataset, AugmentedBatchesAreTheSameWhateverTheWorkersAndResumeMidEpoch) {
  TempDir work;
  DataConfig config = imageFolderConfig(copyOfFolder(work));
  config.augment_enabled = true;  // RandomResizedCrop(32) and the flip
  std::vector<std::vector<Batch>> runs;
  for (const int workers : {0, 1, 3}) {
    config.workers = workers;
    const Dataset data = loadDataset(config, 5);
    BatchLoaderOptions options;
    options.batch_size = 16;
    options.seed = 5;
    options.prefetch = 3;
    options.augment = config.augment;
    BatchLoader loader(data.train, options);
    runs.push_back(folderEpoch(loader, 2));
    if (workers == 3) {
      const std::vector<Batch> tail = folderEpoch(loader, 2, 3);
      ASSERT_EQ(tail.size(), runs.back().size() - 3);
      for (size_t i = 0; i < tail.size(); ++i) EXPECT_TRUE(torch::equal(tail[i].x, runs.back()[i + 3].x));
      // Another epoch draws other crops.
      EXPECT_FALSE(torch::equal(folderEpoch(loader, 3).front().x, runs.back().front().x));
      // The augmentation did something: not the evaluation transform of the same files.
      const std::vector<Batch> first = runs.back();
      EXPECT_FALSE(torch::equal(first.front().x.select(0, 0), data.train.inputs(0, 1)[0]));
    }
  }
  for (size_t r = 1; r < runs.size(); ++r) {
    ASSERT_EQ(runs[r].size(), runs[0].size());
    for (size_t i = 0; i < runs[0].size(); ++i) {
      EXPECT_TRUE(torch::equal(runs[r][i].x, runs[0][i].x)) << "workers run " << r << ", batch " << i;
      EXPECT_TRUE(torch::equal(runs[r][i].y, runs[0][i].y));
    }
  }
}

// Weights trained on ImageNet expect its statistics: with data.images.normalize = imagenet the batches are
// normalized with torchvision's ImageNet mean and std instead of the folder's.
TEST(ImageFolderDataset, ImageNetNormalizationReplacesTheFoldersStatistics) {
  TempDir work;
  DataConfig config = imageFolderConfig(copyOfFolder(work));
  const Dataset own = loadDataset(config, 3);
  config.images.normalize = ImageNormalization::ImageNet;
  const Dataset imagenet = loadDataset(config, 3);
  EXPECT_EQ(imagenet.normalization.mean, (std::vector<double>{0.485, 0.456, 0.406}));
  EXPECT_EQ(imagenet.normalization.std, (std::vector<double>{0.229, 0.224, 0.225}));
  EXPECT_NE(imagenet.description.find("normalization ImageNet's"), std::string::npos) << imagenet.description;
  // The same pixels, normalized the other way: x_imagenet * std_i + mean_i == x_own * std_o + mean_o.
  const torch::Tensor a = imagenet.test.inputs(0, 4);
  const torch::Tensor b = own.test.inputs(0, 4);
  const auto per_channel = [](const std::vector<double>& values) {
    return torch::tensor(values, torch::kFloat).view({1, 3, 1, 1});
  };
  const torch::Tensor pixels_a =
      a * per_channel(imagenet.normalization.std) + per_channel(imagenet.normalization.mean);
  const torch::Tensor pixels_b = b * per_channel(own.normalization.std) + per_channel(own.normalization.mean);
  EXPECT_TRUE(torch::allclose(pixels_a, pixels_b, 1e-5, 1e-5));
  EXPECT_FALSE(torch::allclose(a, b, 1e-3, 1e-3));
  // Grey images cannot take ImageNet's three channels' statistics.
  config.images.channels = 1;
  test::expectDataError([&] { loadDataset(config, 3); }, {"data.images.normalize", "channels"});
}

// The pass's result is kept in the user's cache folder, never in the image folder: a user's data folder is
// read, never written (it may be read-only, shared, or under version control).
TEST(ImageFolderDataset, StatisticsAreMeasuredOnceAndKeptInTheUsersCacheNotTheFolder) {
  TempDir work;
  const DataConfig config = imageFolderConfig(copyOfFolder(work));
  const std::string cache = work.path() + "/cache";
  const char* old_cache = std::getenv("XDG_CACHE_HOME");
  const std::string restore = old_cache ? old_cache : "";
  ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  const auto folder_files = [&] {
    std::vector<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(config.path)) names.push_back(entry.path());
    std::sort(names.begin(), names.end());
    return names;
  };
  const std::vector<std::string> before = folder_files();
  const Dataset first = loadDataset(config, 3);
  EXPECT_NE(first.description.find("measured once"), std::string::npos) << first.description;
  EXPECT_EQ(folder_files(), before) << "the image folder was written";
  const Dataset again = loadDataset(config, 3);
  EXPECT_NE(again.description.find("read from " + cache + "/torch-workbench/image-statistics-"),
            std::string::npos)
      << again.description;
  EXPECT_EQ(again.normalization.mean, first.normalization.mean);
  // A changed file is measured again.
  const std::string some_file = first.train.source->sampleName(0);
  fs::last_write_time(some_file, fs::last_write_time(some_file) + std::chrono::seconds(5));
  EXPECT_NE(loadDataset(config, 3).description.find("measured once"), std::string::npos);
  EXPECT_EQ(folder_files(), before);
  if (old_cache) {
    ::setenv("XDG_CACHE_HOME", restore.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
}

TEST(ImageFolderDataset, BadFilesAreNamedOrSkippedAndCounted) {
  TempDir work;
  DataConfig config = imageFolderConfig(copyOfFolder(work));
  const std::string truncated = config.path + "/Bag/truncated.jpg";
  std::string jpeg = readWholeFile(config.path + "/Bag/8_00000.jpg");
  test::writeBytes(truncated, jpeg.substr(0, jpeg.size() / 3));
  const std::string text = config.path + "/Coat/notes.png";
  test::writeBytes(text, "not an image at all\n");
  config.test_fraction = 0.0;  // every file in a split that is read
  config.val_fraction = 0.0;
  // The Data tab's question, before any run: the same files, named, and the pass cached for the run's start.
  Experiment experiment;
  experiment.seed = 1;
  experiment.data = config;
  const std::vector<UnreadableFile> unreadable = findUnreadableFiles(experiment);
  ASSERT_EQ(unreadable.size(), 2u);
  EXPECT_TRUE((unreadable[0].file == truncated && unreadable[1].file == text) ||
              (unreadable[0].file == text && unreadable[1].file == truncated));
  EXPECT_NE(unreadable[0].reason.find(unreadable[0].file), std::string::npos) << unreadable[0].reason;
  experiment.data.dataset = DatasetName::FashionMnist;
  EXPECT_TRUE(findUnreadableFiles(experiment).empty());
  const std::string hint = test::expectDataError(
      [&] { loadDataset(config, 1); }, {"2 of the 122 image files cannot be read", truncated, text});
  EXPECT_NE(hint.find("data.images.bad_files"), std::string::npos) << hint;

  config.images.bad_files = BadFilePolicy::Skip;
  const Dataset data = loadDataset(config, 1);
  EXPECT_EQ(data.train.size(), 120);
  EXPECT_NE(data.description.find("Skipped 2 unreadable image files"), std::string::npos) << data.description;
  EXPECT_NE(data.description.find(truncated), std::string::npos);
}

TEST(ImageFolderDataset, FoldersThatCannotTrainAreNamed) {
  TempDir work;
  DataConfig config = imageFolderConfig(copyOfFolder(work));
  // Mixed sizes without a resize: the batch cannot be made.
  DataConfig no_resize = config;
  no_resize.images.resize = 0;
  no_resize.images.crop = 0;
  const std::string hint =
      test::expectDataError([&] { loadDataset(no_resize, 1); }, {"pixels after the transforms"});
  EXPECT_NE(hint.find("data.images.resize"), std::string::npos);
  // An empty class folder, a folder without class folders, a folder that does not exist.
  fs::create_directories(config.path + "/Zebra");
  test::expectDataError([&] { loadDataset(config, 1); }, {"Zebra"});
  fs::remove(config.path + "/Zebra");
  DataConfig flat = config;
  flat.path = work.file("flat");
  test::writeBytes(flat.path + "/a.png", readWholeFile(config.path + "/Bag/8_00002.png"));
  test::expectDataError([&] { loadDataset(flat, 1); }, {flat.path});
  DataConfig missing = config;
  missing.path = work.file("nowhere");
  test::expectDataError([&] { loadDataset(missing, 1); }, {missing.path});
  // A test folder with other classes.
  DataConfig other_test = config;
  other_test.test_path = work.file("other");
  fs::create_directories(other_test.test_path + "/Bag");
  test::writeBytes(other_test.test_path + "/Bag/x.png", readWholeFile(config.path + "/Bag/8_00002.png"));
  test::expectDataError([&] { loadDataset(other_test, 1); }, {other_test.test_path, "other classes"});
}

TEST(ImageFolderDataset, ProbeReportsTheShapeWithoutReadingEveryFile) {
  TempDir work;
  DataConfig config = imageFolderConfig(copyOfFolder(work));
  const DataShape shape = probeDataShape(config);
  EXPECT_EQ(shape.sample_shape, (std::vector<int64_t>{3, 32, 32}));
  EXPECT_EQ(shape.num_classes, 10);
  EXPECT_EQ(shape.train_samples, 90);
  config.images.crop = 0;
  config.images.channels = 1;
  EXPECT_EQ(probeDataShape(config).sample_shape[0], 1);
  EXPECT_EQ(probeDataShape(config).sample_shape[1], 36);  // the shorter side after Resize(36)
}

}  // namespace
}  // namespace wb
