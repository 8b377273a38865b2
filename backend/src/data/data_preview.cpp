// The preview reads only what it shows: for an image folder, the folder listing and one file per class,
// transformed as the training split's first epoch would transform it; for a dataset held in memory (tens of
// megabytes at most: Fashion-MNIST, CIFAR-10, a CSV file), the dataset itself, for its class counts and
// samples.

#include "workbench/data_preview.h"

#include <algorithm>
#include <filesystem>
#include <random>

#include "data/dataset.h"
#include "data/dataset_catalog.h"
#include "data/image_folder_dataset.h"
#include "data/raw_dataset.h"
#include "data/seed_mixing.h"
#include "data/text_cache.h"
#include "data/text_dataset.h"
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

// A dataset read into memory (Fashion-MNIST, MNIST, CIFAR-10, CSV, synthetic): its training split's class
// counts and, for 8-bit images, the first sample of each class as stored (these datasets have no
// preprocessing besides normalization, which the preview leaves out as it does for image folders).
void previewInMemory(const Experiment& e, int max_samples, DataPreview& preview) {
  const RawDataset raw = readRawDataset(e.data, e.seed);
  preview.class_names = raw.class_names;
  const auto classes = static_cast<int64_t>(preview.class_names.size());
  const torch::Tensor labels = raw.train.labels.to(torch::kLong);
  const torch::Tensor counts = torch::bincount(labels, /*weights=*/{}, classes);
  preview.class_counts.assign(counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + counts.numel());
  const torch::Tensor& inputs = raw.train.inputs;
  const bool images = inputs.scalar_type() == torch::kUInt8 && inputs.dim() == 4 &&
                      (inputs.size(1) == 1 || inputs.size(1) == 3);
  if (!images) return;
  for (int64_t c = 0; c < classes && static_cast<int>(preview.samples.size()) < max_samples; ++c) {
    const torch::Tensor rows = (labels == c).nonzero();
    if (rows.numel() == 0) continue;
    const torch::Tensor image = inputs[rows[0][0].item<int64_t>()].permute({1, 2, 0}).contiguous();
    PreviewSample sample;
    sample.class_name = preview.class_names[static_cast<size_t>(c)];
    sample.channels = static_cast<int>(image.size(2));
    sample.height = static_cast<int>(image.size(0));
    sample.width = static_cast<int>(image.size(1));
    sample.pixels.assign(image.data_ptr<uint8_t>(), image.data_ptr<uint8_t>() + image.numel());
    preview.samples.push_back(std::move(sample));
  }
}

// Labelled texts: the labels with their counts, and how the texts become tokens (from the tokens' cache that
// the shape's probe above has just filled).
void previewTexts(const Experiment& e, DataPreview& preview) {
  const DataConfig& d = e.data;
  const TokenizedTextFile file =
      tokenizeTextFile(d.path, textColumnsOf(d), d.text.tokenizer, textTokenizingOf(d));
  const TokenizedTexts& t = *file.texts;
  preview.class_names = t.label_names;
  preview.class_counts.assign(t.label_names.size(), 0);
  for (const int64_t label : t.labels) ++preview.class_counts[static_cast<size_t>(label)];
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < t.size(); ++i) lengths.push_back(t.length(i));
  std::sort(lengths.begin(), lengths.end());
  preview.preprocessing =
      "tokenized with " + d.text.tokenizer + ", at most " + std::to_string(d.text.max_length) +
      " tokens; tokens per text: median " + std::to_string(lengths[lengths.size() / 2]) + ", longest " +
      std::to_string(lengths.back()) + "; " + std::to_string(t.truncated_records) + " texts cut (" +
      std::to_string(t.truncated_tokens) + " tokens dropped)" +
      (t.bad.empty() ? std::string() : "; " + std::to_string(t.bad.size()) + " rows left out");
  preview.loader =
      "padded per batch" + std::string(d.text.bucket_by_length ? ", batches of similar lengths" : "") +
      "; tokenized once (" + std::to_string(std::max<int64_t>(1, d.workers)) + " threads), kept in " +
      (file.cache_file.empty() ? std::string("no cache (no cache folder)") : file.cache_file);
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
  if (datasetInfo(d.dataset).kind == DatasetKind::Text) {
    previewTexts(e, preview);
    return preview;
  }
  if (datasetInfo(d.dataset).kind != DatasetKind::ImageFolder) {
    previewInMemory(e, max_samples, preview);
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

std::vector<UnreadableFile> findUnreadableFiles(const Experiment& e) {
  if (datasetInfo(e.data.dataset).kind != DatasetKind::ImageFolder) return {};
  std::vector<UnreadableFile> out;
  for (const BadImageFile& bad : unreadableImageFiles(e.data, e.seed)) out.push_back({bad.file, bad.reason});
  return out;
}

}  // namespace wb
