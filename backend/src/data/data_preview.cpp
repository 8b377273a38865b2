// The preview reads only what it shows: the folder listing (image folders) or the headers (probeDataShape),
// and one file per class, transformed as the training split's first epoch would transform it.

#include "workbench/data_preview.h"

#include <algorithm>
#include <filesystem>
#include <random>

#include "data/dataset.h"
#include "data/dataset_catalog.h"
#include "data/seed_mixing.h"
#include "images/image_folder_index.h"
#include "images/image_transform.h"
#include "workbench/errors.h"

namespace wb {
namespace {

std::string sizeText(int64_t size) {
  return std::to_string(size);
}

std::string preprocessingOf(const DataConfig& d) {
  std::string evaluation;
  if (d.images.resize > 0) evaluation += "Resize(" + sizeText(d.images.resize) + ")";
  if (d.images.crop > 0)
    evaluation += std::string(evaluation.empty() ? "" : ", ") + "CenterCrop(" + sizeText(d.images.crop) + ")";
  if (evaluation.empty()) evaluation = "as stored";
  std::string training = evaluation;
  if (d.augment_enabled) {
    if (d.augment.random_resized_crop && d.images.crop > 0)
      training = "RandomResizedCrop(" + sizeText(d.images.crop) + ")";
    if (d.augment.horizontal_flip) training += ", RandomHorizontalFlip()";
  }
  const std::string mode = std::string(d.images.jpeg_draft ? "JPEG draft (DCT-scaled decode), " : "") +
                           (d.images.channels == 1 ? "convert(\"L\")" : "convert(\"RGB\")");
  return mode + "; evaluation: " + evaluation + "; training: " + training +
         "; then ToTensor and Normalize with " +
         (d.images.normalize == ImageNormalization::ImageNet
              ? std::string("ImageNet's mean and std (0.485, 0.456, 0.406) / (0.229, 0.224, 0.225)")
              : std::string("the training files' mean and std"));
}

}  // namespace

DataPreview previewData(const Experiment& e, int max_samples) {
  const DataConfig& d = e.data;
  DataPreview preview;
  preview.dataset = d.dataset;
  preview.source = dataFolder(d);
  const DataShape shape = probeDataShape(d);
  preview.sample_shape = shape.sample_shape;
  preview.train_samples = shape.train_samples;
  preview.loader = std::to_string(d.prefetch) + (d.prefetch == 1 ? " batch" : " batches") + " prefetched";
  if (datasetInfo(d.dataset).kind != DatasetKind::ImageFolder) {
    const DatasetInfo info = datasetInfo(d.dataset);
    preview.class_names = info.class_names;
    for (auto c = static_cast<int64_t>(preview.class_names.size()); c < shape.num_classes; ++c) {
      preview.class_names.push_back(std::to_string(c));
    }
    return preview;
  }
  const ImageFolderIndex index = indexImageFolder(d.path);
  preview.class_names = index.classes;
  preview.class_counts = index.class_counts;
  preview.preprocessing = preprocessingOf(d);
  preview.loader =
      std::to_string(d.workers) + (d.workers == 1 ? " worker" : " workers") +
      (d.workers == 0 ? " (batches made on the training thread)" : "") +
      (d.augment_on == AugmentPlace::Device ? ", crop, flip and normalization on the training device" : "") +
      ", " + preview.loader;
  ImageTransform transform;
  transform.resize = d.images.resize;
  transform.crop = d.images.crop;
  transform.channels = static_cast<int>(d.images.channels);
  transform.jpeg_draft = d.images.jpeg_draft;
  transform.random_resized_crop = d.augment_enabled && d.augment.random_resized_crop;
  transform.horizontal_flip = d.augment_enabled && d.augment.horizontal_flip;
  // One file per class, the first of each, in class order.
  for (size_t c = 0; c < index.classes.size() && static_cast<int>(preview.samples.size()) < max_samples;
       ++c) {
    const auto first = std::find(index.labels.begin(), index.labels.end(), static_cast<int64_t>(c));
    if (first == index.labels.end()) continue;
    const std::string& file = index.files[static_cast<size_t>(first - index.labels.begin())];
    DecodedImage image;
    try {
      std::mt19937_64 random(mixSeed(e.seed, c));
      image = trainingTransform(readImageFor(file, transform), transform, random);
    } catch (const DataError&) {
      if (d.images.bad_files == BadFilePolicy::Skip) continue;
      throw;
    }
    PreviewSample sample;
    sample.class_name = index.classes[c];
    sample.file = file;
    sample.height = static_cast<int>(image.height);
    sample.width = static_cast<int>(image.width);
    sample.channels = image.channels;
    sample.pixels.assign(image.pixels.begin(), image.pixels.end());
    preview.samples.push_back(std::move(sample));
  }
  return preview;
}

}  // namespace wb
