#include "images/image_transform.h"

#include <algorithm>
#include <utility>

#include "images/image_augment.h"
#include "images/image_resize.h"

namespace wb {

DecodedImage readImageFor(const std::string& file, const ImageTransform& transform) {
  const int64_t needed = std::max(transform.resize, transform.crop);
  return readImageFile(file, transform.channels, transform.jpeg_draft ? needed : 0);
}

DecodedImage evaluationTransform(DecodedImage image, const ImageTransform& transform) {
  if (transform.resize > 0) image = resizeShorterSide(image, transform.resize);
  if (transform.crop > 0) image = centerCrop(image, transform.crop, transform.crop);
  return image;
}

DecodedImage trainingTransform(DecodedImage image, const ImageTransform& transform, std::mt19937_64& random) {
  if (transform.random_resized_crop && transform.crop > 0) {
    const CropBox box = randomResizedCropBox(image.height, image.width, ResizedCropRange{}, random);
    image = resizedCrop(image, box, transform.crop, transform.crop);
  } else {
    image = evaluationTransform(std::move(image), transform);
  }
  // RandomHorizontalFlip(p=0.5): drawn for every sample, flipped or not, so the stream does not depend on it.
  if (transform.horizontal_flip && std::uniform_real_distribution<double>(0.0, 1.0)(random) < 0.5) {
    flipHorizontally(image);
  }
  return image;
}

}  // namespace wb
