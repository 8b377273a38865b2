#pragma once
// The datasets the workbench knows by name: where their files live, what they are called on disk, what
// their classes are called, and what to tell a user whose copy is missing.

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

enum class DatasetKind { Idx, Cifar10, Csv, ImageFolder, Text, Synthetic };

struct DatasetInfo {
  DatasetKind kind = DatasetKind::Synthetic;
  std::string display_name;              // "Fashion-MNIST"
  std::vector<std::string> class_names;  // empty when the data decide (csv, synthetic)
  int64_t known_classes = 0;             // the class count the dataset is published with; 0 when unknown
};

DatasetInfo datasetInfo(DatasetName dataset);

struct IdxFiles {
  std::string train_images, train_labels, test_images, test_labels;
};
// The four IDX files in the configured (or default) folder, each either gzipped (.gz) or not; throws
// DataError naming what is missing and how to get it.
IdxFiles findIdxFiles(const DataConfig& config);

struct Cifar10Files {
  std::vector<std::string> train;  // data_batch_1.bin … data_batch_5.bin
  std::string test;                // test_batch.bin
};
// In data.path itself or its cifar-10-batches-bin subfolder (as the archive extracts).
Cifar10Files findCifar10Files(const DataConfig& config);

// data.path, or the dataset's default folder when it is empty.
std::string dataFolder(const DataConfig& config);

}  // namespace wb
