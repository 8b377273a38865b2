#pragma once
// One split of a dataset (train, validation or test): its labels always in memory, its inputs either a tensor
// in memory (the built-in datasets, normalized once at load) or a SampleSource that reads them on demand
// (image folders). Code that walks a split in order (evaluation, the evaluation view, calibration) goes
// through SplitBatches and so works on both; only code that moves a whole split to the device asks
// inMemory().

#include <torch/torch.h>

#include <cstdint>
#include <memory>
#include <optional>

#include "data/sample_source.h"

namespace wb {

struct DataSplit {
  torch::Tensor x;  // float32 [N, C, H, W] or [N, F]; undefined when `source` reads the inputs
  torch::Tensor y;  // int64 [N]
  std::shared_ptr<const SampleSource> source;

  int64_t size() const { return y.defined() ? y.size(0) : 0; }
  bool inMemory() const { return source == nullptr; }
  // Rows [begin, begin + count) with the evaluation transform: a view of x in memory, decoded from a source.
  torch::Tensor inputs(int64_t begin, int64_t count) const;
  // Rows [begin, begin + count) as a split of their own (a rank's share of validation).
  DataSplit slice(int64_t begin, int64_t count) const;
};

// Rows of a split, as the step or evaluation takes them.
struct Batch {
  torch::Tensor x;
  torch::Tensor y;
  int64_t index = 0;  // batch index within the epoch
};

class BatchLoader;

// A split in order, batch after batch, as evaluation reads it: views of the tensors in memory; from a source,
// made by its workers ahead of use.
class SplitBatches {
 public:
  SplitBatches(const DataSplit& split, int64_t batch_size);
  ~SplitBatches();
  SplitBatches(const SplitBatches&) = delete;
  SplitBatches& operator=(const SplitBatches&) = delete;

  // x and y of the next batch (CPU, or where x lives), and the row it starts at; nullopt at the end.
  std::optional<Batch> next();
  int64_t begin() const { return m_begin; }

 private:
  const DataSplit& m_split;
  int64_t m_batch_size;
  int64_t m_begin = 0;  // the row the batch last returned starts at
  int64_t m_next = 0;
  std::unique_ptr<BatchLoader> m_loader;
};

}  // namespace wb
