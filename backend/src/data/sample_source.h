#pragma once
// A split whose samples are read when they are asked for (image files decoded by the loader's workers)
// instead of being held in memory: a folder larger than RAM trains, memory bounded by the batches in flight.

#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

class SampleSource {
 public:
  virtual ~SampleSource() = default;

  virtual int64_t size() const = 0;
  // The inputs for `rows` (positions in this split, in batch order) as the loader's worker makes them, on the
  // CPU (page-locked when `pinned`): the model's float32 input, normalized as the in-memory datasets are —
  // or, for a source that finishes its transforms on the training device, what onDevice takes. With
  // `augment_seed` the training transform, each sample's randomness drawn from that seed and its position in
  // the batch, so a batch is the same whichever thread makes it; without, the evaluation transform. Throws
  // DataError naming the file that cannot be read.
  virtual torch::Tensor inputs(const std::vector<int64_t>& rows, std::optional<uint64_t> augment_seed,
                               bool pinned) const = 0;
  // The rest of the transforms, on the batch after its copy to the training device (data.augment_on
  // "device"), with the same `augment_seed`; the batch as it is when the workers did everything.
  virtual torch::Tensor onDevice(const torch::Tensor& inputs, std::optional<uint64_t> augment_seed) const {
    (void)augment_seed;
    return inputs;
  }
  // The file (or other name) sample `row` comes from, for messages and the evaluation view.
  virtual std::string sampleName(int64_t row) const = 0;
  // The threads that make batches of this source ahead of their use (data.workers; 0 = the caller's thread).
  virtual int workers() const = 0;
  // Each sample's length where samples differ in length (texts' tokens), for length bucketing; empty where
  // every sample has one shape (images).
  virtual std::vector<int64_t> sampleLengths() const { return {}; }
};

}  // namespace wb
