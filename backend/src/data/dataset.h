#pragma once
// The dataset: three splits, normalized with the training split's statistics. The built-in datasets are
// tensors in memory, normalized once at load, from which BatchLoader gathers batches without copying per
// sample; an image folder's splits are read from their files by the loader's workers
// (data/image_folder_dataset.h).

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "data/data_split.h"
#include "workbench/experiment.h"

namespace wb {

struct Normalization {
  std::vector<double> mean;  // one per channel (images) or per feature (tables)
  std::vector<double> std;
};

struct Dataset {
  DataSplit train;
  DataSplit val;  // may be empty (0 rows) when val_fraction is 0
  DataSplit test;
  std::vector<int64_t> sample_shape;  // without the batch dimension: {C, H, W} or {F}
  int64_t num_classes = 0;
  std::vector<std::string> class_names;
  Normalization normalization;
  std::string description;  // e.g. "Fashion-MNIST: 54000 train, 6000 val, 10000 test, 1x28x28, 10 classes"
};

// What a dataset will look like, read from headers only (for validation before training).
struct DataShape {
  std::vector<int64_t> sample_shape;
  int64_t num_classes = 0;
  int64_t train_samples = 0;
};

// Loads, checks, splits (validation = the last val_fraction of the (limited) training split after a seeded
// shuffle) and normalizes. Throws wb::DataError naming the file and what is wrong.
Dataset loadDataset(const DataConfig& config, uint64_t seed);

DataShape probeDataShape(const DataConfig& config);

// The folder a dataset is read from when data.path is empty.
std::string defaultDataPath(DatasetName dataset);

}  // namespace wb
