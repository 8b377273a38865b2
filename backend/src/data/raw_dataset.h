#pragma once
// A dataset held in memory as its files give it (Fashion-MNIST, MNIST, CIFAR-10, a CSV file, synthetic data):
// 8-bit images or feature rows with their labels, before the validation split and normalization. loadDataset
// makes the training splits from it; the Data tab's preview counts its classes and shows its samples.

#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset_readers.h"
#include "workbench/experiment.h"

namespace wb {

struct RawDataset {
  RawSplit train, test;
  std::string name;  // for the description: "Fashion-MNIST", "CSV iris.csv"
  std::vector<std::string> class_names;
  int64_t num_classes = 0;
};

// Throws DataError / UserError naming the file that cannot be read. Not for image folders (loadImageFolder).
RawDataset readRawDataset(const DataConfig& config, uint64_t seed);

}  // namespace wb
