#pragma once
// Decoded images into the tensors a step takes, as torchvision's ToTensor and Normalize make them: collated
// into one uint8 batch [N, C, H, W] (the form that travels, pinned, to the device: a quarter of float's
// bytes), then converted to float, divided by 255 and normalized with the training split's per-channel mean
// and std — on the worker or on the training device (data.augment_on), with the same operations in the same
// order, so that the numbers are torchvision's.

#include <torch/torch.h>

#include <vector>

#include "images/image_decoding.h"

namespace wb {

class RecycledBatchMemory;

// A batch written image by image as the loader makes them, each straight after its transforms while its
// pixels are still in the cache (not a batch's worth of decoded images gathered first, then read again from
// memory): the HWC bytes into their CHW slot, as uint8 (the form that travels to the device) or normalized to
// float. The first image fixes the batch's height, width and channels; an image of another size throws
// std::invalid_argument (callers name the file first: throwMixedImageSizes).
class ImageBatchWriter {
 public:
  enum class Form { Uint8, Normalized };
  // `mean` and `std`: one per channel, for Form::Normalized. `memory`, when given, holds a float batch that
  // is not pinned: recycled blocks instead of fresh pages.
  ImageBatchWriter(int64_t images, Form form, std::vector<double> mean = {}, std::vector<double> std = {},
                   bool pinned = false, RecycledBatchMemory* memory = nullptr);

  void put(int64_t index, const DecodedImage& image);
  // The batch, once every index has been put.
  torch::Tensor take();

 private:
  void start(const DecodedImage& first);

  int64_t m_images;
  Form m_form;
  std::vector<double> m_mean;
  std::vector<double> m_std;
  bool m_pinned;
  RecycledBatchMemory* m_memory;
  int64_t m_height = 0, m_width = 0, m_channels = 0;
  int64_t m_put = 0;
  std::vector<float> m_table;  // Form::Normalized: each channel's 256 results
  torch::Tensor m_batch;
};

// All images of one size and channel count (the transforms make them so); throws std::invalid_argument
// otherwise.
torch::Tensor collateImages(const std::vector<DecodedImage>& images, bool pinned = false);

// ToTensor then Normalize(mean, std): (x / 255 - mean) / std per channel, float32, on x's device.
// collateImages then normalizeImageBatch in one pass over the pixels (HWC bytes straight into the normalized
// CHW float batch): the same float operations per element — (x / 255 - mean) / std, each correctly rounded —
// so the same numbers, without the uint8 batch, the layout copy and three passes over the floats. `memory`,
// when given, holds the batch (not a pinned one): recycled blocks instead of fresh pages.
torch::Tensor collateNormalized(const std::vector<DecodedImage>& images, const std::vector<double>& mean,
                                const std::vector<double>& std, bool pinned = false,
                                RecycledBatchMemory* memory = nullptr);

// Normalize of a float batch still in pixel units [0, 255] (resampled on the device): /255, - mean, / std in
// place.
torch::Tensor normalizeScaledBatch(torch::Tensor pixels, const std::vector<double>& mean,
                                   const std::vector<double>& std);

// `pinned`: the result in page-locked memory (a CPU batch about to be copied to a GPU).
torch::Tensor normalizeImageBatch(const torch::Tensor& uint8_batch, const std::vector<double>& mean,
                                  const std::vector<double>& std, bool pinned = false);

}  // namespace wb
