#pragma once
// An image folder's split as a SampleSource: each batch's files read and decoded (TurboJPEG, libpng),
// transformed as torchvision would (images/image_transform.h), collated into uint8 and normalized with the
// training split's statistics, on whichever loader worker asks for the batch.

#include <memory>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "data/sample_source.h"
#include "images/image_transform.h"

namespace wb {

class RecycledBatchMemory;

class ImageFolderSource : public SampleSource {
 public:
  // `on_device`: the workers stop at uint8 pixels (Resize and CenterCrop; for RandomResizedCrop a square of
  // images.resize) and onDevice does the random crop, the flip and the normalization (data.augment_on
  // "device").
  ImageFolderSource(std::shared_ptr<const std::vector<std::string>> files, std::vector<int64_t> rows,
                    ImageTransform transform, Normalization normalization, int workers,
                    bool on_device = false);

  int64_t size() const override { return static_cast<int64_t>(m_rows.size()); }
  torch::Tensor inputs(const std::vector<int64_t>& rows, std::optional<uint64_t> augment_seed,
                       bool pinned) const override;
  torch::Tensor onDevice(const torch::Tensor& inputs, std::optional<uint64_t> augment_seed) const override;
  std::string sampleName(int64_t row) const override;
  int workers() const override { return m_workers; }

 private:
  std::shared_ptr<const std::vector<std::string>> m_files;  // the folder's, shared by its splits
  std::vector<int64_t> m_rows;                              // this split's files
  ImageTransform m_transform;
  Normalization m_normalization;
  int m_workers;
  bool m_on_device;
  std::shared_ptr<RecycledBatchMemory> m_batch_memory;  // the batches' memory, recycled (thread-safe)
};

// What makes the shapes of a batch differ, named for the user: `file` came out of the transforms at a size
// other than `expected` (height x width).
[[noreturn]] void throwMixedImageSizes(const std::string& file, int64_t height, int64_t width,
                                       int64_t expected_height, int64_t expected_width);

}  // namespace wb
