// From configuration to normalized tensors: read the raw splits, keep the first `limit` training samples,
// hold out a seeded validation share, measure the training part and normalize every split with it.

#include "data/dataset.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "data/cifar10_records.h"
#include "data/dataset_catalog.h"
#include "data/dataset_readers.h"
#include "data/idx_labels.h"
#include "data/image_folder_dataset.h"
#include "data/normalization.h"
#include "data/raw_dataset.h"
#include "data/seed_mixing.h"
#include "data/split_rows.h"
#include "data/text_dataset.h"
#include "workbench/errors.h"

namespace wb {

namespace {

// The synthetic test split is this share of data.synthetic_samples, drawn around the same class patterns.
constexpr double kSyntheticTestShare = 0.2;

int64_t labelCount(const torch::Tensor& labels) {
  return labels.numel() == 0 ? 0 : labels.max().item<int64_t>() + 1;
}

std::string csvPath(const DataConfig& config) {
  if (config.path.empty()) {
    throw UserError("data.path must name the CSV file when data.dataset is csv");
  }
  return config.path;
}

int64_t syntheticTestCount(int64_t samples) {
  return std::max<int64_t>(1, std::llround(kSyntheticTestShare * static_cast<double>(samples)));
}

void checkSameFeatures(const CsvData& train, const CsvData& test, const std::string& train_file,
                       const std::string& test_file) {
  if (train.feature_names != test.feature_names) {
    throw DataError(test_file + ": its feature columns differ from those of " + train_file,
                    "data.test_path must have the same columns as data.path");
  }
}

RawDataset readCsvDataset(const DataConfig& config, uint64_t seed) {
  const std::string file = csvPath(config);
  CsvData data = readCsv(file, config.label_column);
  RawDataset raw;
  raw.name = "CSV " + std::filesystem::path(file).filename().string();
  raw.num_classes = data.num_classes;
  if (!config.test_path.empty()) {
    CsvData test = readCsv(config.test_path, config.label_column);
    checkSameFeatures(data, test, file, config.test_path);
    raw.train = data.split;
    raw.test = test.split;
    raw.num_classes = std::max(raw.num_classes, test.num_classes);
  } else {
    const int64_t rows = data.split.labels.size(0);
    const int64_t test_rows = heldOutCount(rows, config.test_fraction, "data.test_fraction");
    const auto [train_rows, held_rows] =
        seededSplit(rows, test_rows, streamSeed(seed, SeedStream::CsvTestSplit));
    raw.train = {data.split.inputs.index_select(0, train_rows),
                 data.split.labels.index_select(0, train_rows)};
    raw.test = {data.split.inputs.index_select(0, held_rows), data.split.labels.index_select(0, held_rows)};
  }
  return raw;
}

}  // namespace

RawDataset readRawDataset(const DataConfig& config, uint64_t seed) {
  const DatasetInfo info = datasetInfo(config.dataset);
  RawDataset raw;
  raw.name = info.display_name;
  switch (info.kind) {
    case DatasetKind::Idx: {
      const IdxFiles files = findIdxFiles(config);
      raw.train = readIdx(files.train_images, files.train_labels);
      raw.test = readIdx(files.test_images, files.test_labels);
      if (raw.train.inputs.sizes().slice(1) != raw.test.inputs.sizes().slice(1)) {
        throw DataError(files.test_images + ": its images are not the size of those in " + files.train_images,
                        "use the training and test files of the same dataset");
      }
      break;
    }
    case DatasetKind::Cifar10: {
      const Cifar10Files files = findCifar10Files(config);
      raw.train = readCifar10(files.train);
      raw.test = readCifar10({files.test});
      break;
    }
    case DatasetKind::Csv:
      raw = readCsvDataset(config, seed);
      break;
    case DatasetKind::ImageFolder:
      throw std::logic_error("image folders are read by loadImageFolder");
    case DatasetKind::Text:
      throw std::logic_error("texts are read by loadTextDataset");
    case DatasetKind::Synthetic: {
      // One draw for both splits so the test samples share the training samples' class patterns.
      const int64_t samples = config.synthetic_samples;
      const int64_t test_samples = syntheticTestCount(samples);
      const RawSplit all = makeSynthetic(samples + test_samples, config.synthetic_classes,
                                         config.synthetic_shape, streamSeed(seed, SeedStream::SyntheticData));
      raw.train = {all.inputs.narrow(0, 0, samples), all.labels.narrow(0, 0, samples)};
      raw.test = {all.inputs.narrow(0, samples, test_samples), all.labels.narrow(0, samples, test_samples)};
      raw.num_classes = config.synthetic_classes;
      break;
    }
  }
  raw.num_classes = std::max(
      {raw.num_classes, info.known_classes, labelCount(raw.train.labels), labelCount(raw.test.labels)});
  raw.class_names = info.class_names;
  for (auto c = static_cast<int64_t>(raw.class_names.size()); c < raw.num_classes; ++c) {
    raw.class_names.push_back(std::to_string(c));
  }
  return raw;
}

namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return std::to_string(shape[0]) + " features";
  std::string text;
  for (const int64_t size : shape) text += (text.empty() ? "" : "x") + std::to_string(size);
  return text;
}

}  // namespace

std::string defaultDataPath(DatasetName dataset) {
  // Debian's dataset packages install under their word (dataset-fashion-mnist: .../fashion-mnist).
  const bool packaged = dataset == DatasetName::FashionMnist || dataset == DatasetName::Mnist ||
                        dataset == DatasetName::Cifar10;
  return packaged ? "/usr/share/datasets/" + wordString(dataset) : std::string();
}

Dataset loadDataset(const DataConfig& config, uint64_t seed) {
  // Read by the loader's workers from the files, not into memory.
  if (datasetInfo(config.dataset).kind == DatasetKind::ImageFolder) return loadImageFolder(config, seed);
  if (datasetInfo(config.dataset).kind == DatasetKind::Text) return loadTextDataset(config, seed);
  RawDataset raw = readRawDataset(config, seed);

  const int64_t samples = limitedCount(raw.train.labels.size(0), config.limit);
  const int64_t val_samples = heldOutCount(samples, config.val_fraction, "data.val_fraction");
  const auto [train_rows, val_rows] =
      seededSplit(samples, val_samples, streamSeed(seed, SeedStream::ValidationSplit));
  const torch::Tensor test_rows = torch::arange(raw.test.labels.size(0), torch::kLong);

  Dataset dataset;
  dataset.normalization = computeNormalization(raw.train.inputs, train_rows);
  dataset.train.x = normalizeRows(raw.train.inputs, train_rows, dataset.normalization);
  dataset.train.y = raw.train.labels.index_select(0, train_rows);
  dataset.val.x = normalizeRows(raw.train.inputs, val_rows, dataset.normalization);
  dataset.val.y = raw.train.labels.index_select(0, val_rows);
  dataset.test.x = normalizeRows(raw.test.inputs, test_rows, dataset.normalization);
  dataset.test.y = raw.test.labels.index_select(0, test_rows);

  dataset.sample_shape = raw.train.inputs.sizes().slice(1).vec();
  dataset.num_classes = raw.num_classes;
  dataset.class_names = raw.class_names;
  dataset.description = raw.name + ": " + std::to_string(dataset.train.y.size(0)) + " train, " +
                        std::to_string(dataset.val.y.size(0)) + " val, " +
                        std::to_string(dataset.test.y.size(0)) + " test, " + shapeText(dataset.sample_shape) +
                        ", " + std::to_string(dataset.num_classes) + " classes";
  return dataset;
}

// train_samples is the size of the training split as stored (for csv: after holding out the test share),
// before data.limit and the validation hold-out: experiment checks apply those themselves.
DataShape probeDataShape(const DataConfig& config) {
  const DatasetInfo info = datasetInfo(config.dataset);
  if (info.kind == DatasetKind::ImageFolder) return probeImageFolder(config);
  if (info.kind == DatasetKind::Text) return probeTextDataset(config);
  DataShape shape;
  int64_t samples = 0;
  switch (info.kind) {
    case DatasetKind::Idx: {
      const IdxFiles files = findIdxFiles(config);
      const std::vector<int64_t> header = readIdxImageHeader(files.train_images);
      const std::vector<int64_t> test_header = readIdxImageHeader(files.test_images);
      // The label files are small (60 kB): reading them gives the exact class count and checks the counts.
      const torch::Tensor labels = readIdxLabels(files.train_labels);
      const torch::Tensor test_labels = readIdxLabels(files.test_labels);
      if (labels.size(0) != header[0]) {
        throw DataError(files.train_images + " holds " + std::to_string(header[0]) + " images but " +
                            files.train_labels + " holds " + std::to_string(labels.size(0)) + " labels",
                        "the two files come from different datasets or splits; use a matching pair");
      }
      if (test_labels.size(0) != test_header[0]) {
        throw DataError(files.test_images + " holds " + std::to_string(test_header[0]) + " images but " +
                            files.test_labels + " holds " + std::to_string(test_labels.size(0)) + " labels",
                        "the two files come from different datasets or splits; use a matching pair");
      }
      samples = header[0];
      shape.sample_shape = {1, header[1], header[2]};
      shape.num_classes = std::max({info.known_classes, labelCount(labels), labelCount(test_labels)});
      break;
    }
    case DatasetKind::Cifar10: {
      const Cifar10Files files = findCifar10Files(config);
      for (const auto& file : files.train) samples += cifar10RecordCount(file);
      cifar10RecordCount(files.test);
      shape.sample_shape = {3, 32, 32};
      shape.num_classes = info.known_classes;
      break;
    }
    case DatasetKind::Csv: {
      // CSV files have no header that tells the class count: read the table (loadDataset reads it again).
      const RawDataset raw = readCsvDataset(config, 0);
      samples = raw.train.labels.size(0);
      shape.sample_shape = raw.train.inputs.sizes().slice(1).vec();
      shape.num_classes =
          std::max({raw.num_classes, labelCount(raw.train.labels), labelCount(raw.test.labels)});
      break;
    }
    case DatasetKind::ImageFolder:
      throw std::logic_error("image folders are probed by probeImageFolder");
    case DatasetKind::Text:
      throw std::logic_error("texts are probed by probeTextDataset");
    case DatasetKind::Synthetic:
      if (config.synthetic_samples < 1 || config.synthetic_classes < 1 || config.synthetic_shape.empty() ||
          std::any_of(config.synthetic_shape.begin(), config.synthetic_shape.end(),
                      [](int64_t s) { return s < 1; })) {
        throw UserError(
            "data.synthetic_samples, data.synthetic_classes and data.synthetic_shape must be positive");
      }
      samples = config.synthetic_samples;
      shape.sample_shape = config.synthetic_shape;
      shape.num_classes = config.synthetic_classes;
      break;
  }
  shape.train_samples = samples;
  return shape;
}

}  // namespace wb
