#pragma once
// Readers for the on-disk formats. Each returns raw tensors on the CPU and throws wb::DataError naming the
// file and what is wrong (missing, wrong magic, truncated, counts that disagree) — never a partial load.

#include <torch/torch.h>

#include <string>
#include <vector>

namespace wb {

struct RawSplit {
  torch::Tensor inputs;  // uint8 [N, C, H, W] (images) or float32 [N, F] (tables)
  torch::Tensor labels;  // int64 [N]
};

// IDX (MNIST, Fashion-MNIST), gzipped (by magic, not by name) or not.
RawSplit readIdx(const std::string& images_file, const std::string& labels_file);
// Header only: {N, rows, cols} of an images file.
std::vector<int64_t> readIdxImageHeader(const std::string& images_file);

// CIFAR-10 binary batches (data_batch_1.bin … or test_batch.bin): 1 label byte + 3072 pixel bytes a record.
RawSplit readCifar10(const std::vector<std::string>& batch_files);

struct CsvData {
  RawSplit split;
  std::vector<std::string> feature_names;
  int64_t num_classes = 0;  // labels are integers 0..K-1 in the file
};
// Numeric feature columns and one integer label column, first line a header.
CsvData readCsv(const std::string& file, const std::string& label_column);
std::vector<std::string> readCsvHeader(const std::string& file);

// Classes separable by construction: each class has its own mean pattern plus noise. Deterministic per seed.
RawSplit makeSynthetic(int64_t samples, int64_t classes, const std::vector<int64_t>& shape, uint64_t seed);

}  // namespace wb
