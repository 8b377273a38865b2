#include "data/image_folder_source.h"

#include <utility>

#include "data/device_augment.h"
#include "data/image_batch.h"
#include "data/recycled_batch_memory.h"
#include "data/seed_mixing.h"
#include "workbench/errors.h"

namespace wb {

ImageFolderSource::ImageFolderSource(std::shared_ptr<const std::vector<std::string>> files,
                                     std::vector<int64_t> rows, ImageTransform transform,
                                     Normalization normalization, int workers, bool on_device)
    : m_files(std::move(files)),
      m_rows(std::move(rows)),
      m_transform(transform),
      m_normalization(std::move(normalization)),
      m_workers(workers),
      m_on_device(on_device),
      m_batch_memory(RecycledBatchMemory::create()) {}

std::string ImageFolderSource::sampleName(int64_t row) const {
  return (*m_files)[static_cast<size_t>(m_rows.at(static_cast<size_t>(row)))];
}

torch::Tensor ImageFolderSource::inputs(const std::vector<int64_t>& rows,
                                        std::optional<uint64_t> augment_seed, bool pinned) const {
  ImageBatchWriter batch(static_cast<int64_t>(rows.size()),
                         m_on_device ? ImageBatchWriter::Form::Uint8 : ImageBatchWriter::Form::Normalized,
                         m_normalization.mean, m_normalization.std, pinned, m_batch_memory.get());
  int64_t height = 0, width = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string& file = sampleName(rows[i]);
    DecodedImage image;
    if (m_on_device) {
      // The device crops a square of images.resize at random, or flips the evaluation crop.
      ImageTransform staging = m_transform;
      if (augment_seed && m_transform.random_resized_crop) staging.crop = m_transform.resize;
      image = evaluationTransform(readImageFor(file, m_transform), staging);
    } else if (augment_seed) {
      std::mt19937_64 random(mixSeed(*augment_seed, i));
      image = readForTraining(file, m_transform, random);
    } else {
      image = evaluationTransform(readImageFor(file, m_transform), m_transform);
    }
    if (i == 0) {
      height = image.height;
      width = image.width;
    } else if (image.height != height || image.width != width) {
      throwMixedImageSizes(file, image.height, image.width, height, width);
    }
    // Into the batch now, while its pixels are in the cache; its memory is the next image's.
    batch.put(static_cast<int64_t>(i), image);
  }
  return batch.take();
}

torch::Tensor ImageFolderSource::onDevice(const torch::Tensor& inputs,
                                          std::optional<uint64_t> augment_seed) const {
  if (!m_on_device) return inputs;
  torch::NoGradGuard no_grad;
  const std::vector<double>& mean = m_normalization.mean;
  const std::vector<double>& std = m_normalization.std;
  if (!augment_seed) return normalizeImageBatch(inputs, mean, std);
  // The draws each sample's worker would make, in the same order: the box (on the staged square), then the
  // flip.
  const int64_t batch = inputs.size(0);
  std::vector<CropBox> boxes;
  std::vector<bool> flips;
  for (int64_t i = 0; i < batch; ++i) {
    std::mt19937_64 random(mixSeed(*augment_seed, static_cast<uint64_t>(i)));
    if (m_transform.random_resized_crop) {
      boxes.push_back(randomResizedCropBox(inputs.size(2), inputs.size(3), ResizedCropRange{}, random));
    }
    flips.push_back(m_transform.horizontal_flip &&
                    std::uniform_real_distribution<double>(0.0, 1.0)(random) < 0.5);
  }
  if (!m_transform.random_resized_crop) return normalizeImageBatch(flipSamples(inputs, flips), mean, std);
  const torch::Tensor cropped = resizedCropBatch(inputs.to(torch::kFloat32), boxes, flips, m_transform.crop);
  return normalizeScaledBatch(cropped, mean, std);
}

void throwMixedImageSizes(const std::string& file, int64_t height, int64_t width, int64_t expected_height,
                          int64_t expected_width) {
  throw DataError(
      file + " is " + std::to_string(width) + "x" + std::to_string(height) +
          " pixels after the transforms, but other images are " + std::to_string(expected_width) + "x" +
          std::to_string(expected_height) + ": a batch needs one size",
      "set data.images.resize and data.images.crop (such as 256 and 224) so that every image comes out "
      "the same size");
}

}  // namespace wb
