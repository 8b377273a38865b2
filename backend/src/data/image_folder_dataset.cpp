#include "data/image_folder_dataset.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <numeric>
#include <set>

#include "data/image_folder_source.h"
#include "data/image_scan.h"
#include "data/seed_mixing.h"
#include "data/split_rows.h"
#include "images/image_folder_index.h"
#include "workbench/errors.h"

namespace wb {
namespace {

// How many bad files the description and the error name before "and N more".
constexpr size_t kBadFilesNamed = 5;

ImageTransform transformOf(const DataConfig& config) {
  ImageTransform t;
  t.resize = config.images.resize;
  t.crop = config.images.crop;
  t.channels = static_cast<int>(config.images.channels);
  t.jpeg_draft = config.images.jpeg_draft;
  if (config.augment_enabled) {
    t.random_resized_crop = config.augment.random_resized_crop;
    t.horizontal_flip = config.augment.horizontal_flip;
  }
  return t;
}

std::string folderOf(const DataConfig& config) {
  if (config.path.empty()) {
    throw UserError("data.path must name the image folder when data.dataset is image_folder",
                    "point data.path at a folder with one subfolder of images per class");
  }
  return config.path;
}

// The files of every split in one list (the training folder's, then a separate test folder's), with the rows
// of each split into it.
struct FolderSplits {
  std::string root;
  std::vector<std::string> classes;
  std::vector<std::string> files;
  std::vector<int64_t> labels;
  std::vector<int64_t> train, val, test;
  int64_t train_pool =
      0;  // the training folder's samples that are not test samples (before limit and validation)
};

FolderSplits splitFolder(const DataConfig& config, uint64_t seed) {
  FolderSplits s;
  ImageFolderIndex index = indexImageFolder(folderOf(config));
  s.root = index.root;
  s.classes = index.classes;
  s.files = index.files;
  s.labels = index.labels;
  const auto n = static_cast<int64_t>(index.files.size());
  std::vector<int64_t> pool;
  if (!config.test_path.empty()) {
    const ImageFolderIndex test = indexImageFolder(config.test_path);
    if (test.classes != index.classes) {
      throw DataError(config.test_path + " has other classes than " + index.root + " (" +
                          std::to_string(test.classes.size()) + " against " +
                          std::to_string(index.classes.size()) + " folders, or other names)",
                      "data.test_path must have one subfolder for each class of data.path, named the same");
    }
    pool.resize(static_cast<size_t>(n));
    std::iota(pool.begin(), pool.end(), 0);
    for (size_t i = 0; i < test.files.size(); ++i) {
      s.test.push_back(static_cast<int64_t>(s.files.size()));
      s.files.push_back(test.files[i]);
      s.labels.push_back(test.labels[i]);
    }
  } else {
    const int64_t held = heldOutCount(n, config.test_fraction, "data.test_fraction");
    const auto [kept, test_rows] = seededSplit(n, held, streamSeed(seed, SeedStream::ImageFolderTestSplit));
    pool = rowsOf(kept);
    s.test = rowsOf(test_rows);
  }
  s.train_pool = static_cast<int64_t>(pool.size());
  TrainValRows rows = limitThenHoldOut(std::move(pool), config.limit, config.val_fraction,
                                       streamSeed(seed, SeedStream::ImageFolderLimit),
                                       streamSeed(seed, SeedStream::ValidationSplit));
  s.train = std::move(rows.train);
  s.val = std::move(rows.val);
  return s;
}

std::string listOfBadFiles(const std::vector<BadImageFile>& bad) {
  std::string text;
  for (size_t i = 0; i < std::min(bad.size(), kBadFilesNamed); ++i) text += "\n  " + bad[i].reason;
  if (bad.size() > kBadFilesNamed) text += "\n  and " + std::to_string(bad.size() - kBadFilesNamed) + " more";
  return text;
}

DataSplit makeSplit(const std::shared_ptr<const std::vector<std::string>>& files,
                    const std::vector<int64_t>& labels, const std::vector<int64_t>& rows,
                    const std::set<std::string>& bad, const ImageTransform& transform,
                    const Normalization& normalization, int workers, bool on_device) {
  std::vector<int64_t> kept;
  std::vector<int64_t> kept_labels;
  for (const int64_t row : rows) {
    if (bad.count((*files)[static_cast<size_t>(row)])) continue;
    kept.push_back(row);
    kept_labels.push_back(labels[static_cast<size_t>(row)]);
  }
  DataSplit split;
  split.y = torch::tensor(kept_labels, torch::kLong);
  if (kept_labels.empty()) split.y = torch::zeros({0}, torch::kLong);
  split.source = std::make_shared<ImageFolderSource>(files, std::move(kept), transform, normalization,
                                                     workers, on_device);
  return split;
}

// The mean and std Normalize uses: the training files' own, or ImageNet's, which every ImageNet-trained
// weights file expects (torchvision's Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])).
Normalization chosenNormalization(const DataConfig& config, const ImageScan& scan) {
  if (config.images.normalize == ImageNormalization::Folder) return scan.normalization;
  if (config.images.channels != 3) {
    throw DataError("data.images.normalize = \"imagenet\" needs RGB images, but data.images.channels is " +
                        std::to_string(config.images.channels),
                    "set data.images.channels to 3, or data.images.normalize to \"folder\"");
  }
  return {{0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}};
}

std::string normalizationText(const DataConfig& config, const ImageScan& scan) {
  const std::string kept =
      scan.cache_file.empty() ? std::string("(not kept: no writable place)") : scan.cache_file;
  const std::string place = (scan.from_cache ? "read from " : "measured once, kept in ") + kept;
  if (config.images.normalize == ImageNormalization::ImageNet) {
    return "normalization ImageNet's (data.images.normalize); files scanned " + place;
  }
  return "normalization " + place;
}

// The pass a run makes over every file its splits use, once each in the folder's order, the training ones
// marked for the statistics (image_scan.h): a run and unreadableImageFiles share it, and its cache.
struct FolderScan {
  FolderSplits splits;
  ImageScan scan;
  size_t files = 0;  // how many the splits use
};

FolderScan scanFolderSplits(const DataConfig& config, uint64_t seed, const ImageTransform& transform,
                            int workers) {
  FolderScan out;
  out.splits = splitFolder(config, seed);
  const FolderSplits& s = out.splits;
  std::vector<int64_t> used;
  used.insert(used.end(), s.train.begin(), s.train.end());
  used.insert(used.end(), s.val.begin(), s.val.end());
  used.insert(used.end(), s.test.begin(), s.test.end());
  std::sort(used.begin(), used.end());
  std::vector<char> is_train(s.files.size(), 0);
  for (const int64_t row : s.train) is_train[static_cast<size_t>(row)] = 1;
  std::vector<std::string> files;
  std::vector<char> training;
  for (const int64_t row : used) {
    files.push_back(s.files[static_cast<size_t>(row)]);
    training.push_back(is_train[static_cast<size_t>(row)]);
  }
  const std::string split_key = "seed " + std::to_string(seed) + " limit " + std::to_string(config.limit) +
                                " val " + std::to_string(config.val_fraction) + " test " + config.test_path +
                                " " + std::to_string(config.test_fraction);
  out.files = files.size();
  out.scan = scanImageFiles(s.root, files, training, transform, std::max(1, workers), split_key);
  return out;
}

}  // namespace

std::vector<BadImageFile> unreadableImageFiles(const DataConfig& config, uint64_t seed) {
  return scanFolderSplits(config, seed, transformOf(config), static_cast<int>(config.workers)).scan.bad;
}

Dataset loadImageFolder(const DataConfig& config, uint64_t seed) {
  const ImageTransform transform = transformOf(config);
  const int workers = static_cast<int>(config.workers);
  const FolderScan scanned = scanFolderSplits(config, seed, transform, workers);
  const FolderSplits& s = scanned.splits;
  const ImageScan& scan = scanned.scan;
  if (!scan.bad.empty() && config.images.bad_files != BadFilePolicy::Skip) {
    throw DataError(std::to_string(scan.bad.size()) + " of the " + std::to_string(scanned.files) +
                        " image files cannot be read:" + listOfBadFiles(scan.bad),
                    "replace or remove them, or set data.images.bad_files to \"skip\" to train without them");
  }
  std::set<std::string> bad;
  for (const auto& b : scan.bad) bad.insert(b.file);
  if (scan.height == 0) {
    throw DataError(
        "none of the " + std::to_string(scanned.files) + " image files in " + s.root + " can be read",
        "the folder needs JPEG or PNG images in its class subfolders");
  }

  auto shared_files = std::make_shared<const std::vector<std::string>>(s.files);
  Dataset dataset;
  const Normalization normalization = chosenNormalization(config, scan);
  dataset.normalization = normalization;
  const bool on_device = config.augment_on == AugmentPlace::Device;
  dataset.train =
      makeSplit(shared_files, s.labels, s.train, bad, transform, normalization, workers, on_device);
  ImageTransform evaluation = transform;
  evaluation.random_resized_crop = false;
  evaluation.horizontal_flip = false;
  dataset.val = makeSplit(shared_files, s.labels, s.val, bad, evaluation, normalization, workers, on_device);
  dataset.test =
      makeSplit(shared_files, s.labels, s.test, bad, evaluation, normalization, workers, on_device);
  if (dataset.train.size() == 0) {
    throw DataError("no training image is left in " + s.root + " once the unreadable files are skipped",
                    "replace the unreadable files");
  }
  dataset.sample_shape = {transform.channels, scan.height, scan.width};
  dataset.num_classes = static_cast<int64_t>(s.classes.size());
  dataset.class_names = s.classes;
  dataset.description = "Image folder " + s.root + ": " + std::to_string(dataset.train.size()) + " train, " +
                        std::to_string(dataset.val.size()) + " val, " + std::to_string(dataset.test.size()) +
                        " test, " + std::to_string(transform.channels) + "x" + std::to_string(scan.height) +
                        "x" + std::to_string(scan.width) + ", " + std::to_string(dataset.num_classes) +
                        " classes; " + std::to_string(workers) + (workers == 1 ? " worker" : " workers") +
                        (on_device ? " (crop, flip and normalization on the training device)" : "") + "; " +
                        normalizationText(config, scan);
  if (!scan.bad.empty()) {
    dataset.description +=
        "\nSkipped " + std::to_string(scan.bad.size()) +
        " unreadable image files (data.images.bad_files = skip):" + listOfBadFiles(scan.bad);
  }
  return dataset;
}

DataShape probeImageFolder(const DataConfig& config) {
  const ImageFolderIndex index = indexImageFolder(folderOf(config));
  DataShape shape;
  shape.num_classes = static_cast<int64_t>(index.classes.size());
  const auto n = static_cast<int64_t>(index.files.size());
  shape.train_samples =
      config.test_path.empty() ? n - heldOutCount(n, config.test_fraction, "data.test_fraction") : n;
  const ImageTransform transform = transformOf(config);
  // The size the model gets: the crop's when there is one, else the first readable file's after the
  // transforms.
  if (transform.crop > 0) {
    shape.sample_shape = {transform.channels, transform.crop, transform.crop};
    return shape;
  }
  for (const std::string& file : index.files) {
    try {
      const DecodedImage image = evaluationTransform(readImageFor(file, transform), transform);
      shape.sample_shape = {transform.channels, image.height, image.width};
      return shape;
    } catch (const DataError&) {
      if (config.images.bad_files != BadFilePolicy::Skip) throw;
    }
  }
  throw DataError("none of the image files in " + index.root + " can be read",
                  "the folder needs JPEG or PNG images in its class subfolders");
}

}  // namespace wb
