#include "images/image_transform.h"

#include <algorithm>
#include <utility>

#include "images/image_augment.h"
#include "images/image_resize.h"

namespace wb {

namespace {

// The shorter side a drafted JPEG keeps at least (0: no draft).
int64_t draftSide(const ImageTransform& transform) {
  return transform.jpeg_draft ? std::max(transform.resize, transform.crop) : 0;
}

}  // namespace

DecodedImage readImageFor(const std::string& file, const ImageTransform& transform) {
  return readImageFile(file, transform.channels, draftSide(transform));
}

DecodedImage evaluationTransform(DecodedImage image, const ImageTransform& transform) {
  if (transform.resize > 0) image = resizeShorterSide(image, transform.resize);
  if (transform.crop > 0) image = centerCrop(image, transform.crop, transform.crop);
  return image;
}

namespace {

// RandomHorizontalFlip(p=0.5): drawn for every sample, flipped or not, so the stream does not depend on it.
void randomFlip(DecodedImage& image, const ImageTransform& transform, std::mt19937_64& random) {
  if (transform.horizontal_flip && std::uniform_real_distribution<double>(0.0, 1.0)(random) < 0.5) {
    flipHorizontally(image);
  }
}

bool cropsAtRandom(const ImageTransform& transform) {
  return transform.random_resized_crop && transform.crop > 0;
}

}  // namespace

DecodedImage trainingTransform(DecodedImage image, const ImageTransform& transform, std::mt19937_64& random) {
  if (cropsAtRandom(transform)) {
    const CropBox box = randomResizedCropBox(image.height, image.width, ResizedCropRange{}, random);
    image = resizedCrop(image, box, transform.crop, transform.crop);
  } else {
    image = evaluationTransform(std::move(image), transform);
  }
  randomFlip(image, transform, random);
  return image;
}

DecodedImage readForTraining(const std::string& file, const ImageTransform& transform,
                             std::mt19937_64& random) {
  if (!cropsAtRandom(transform)) return trainingTransform(readImageFor(file, transform), transform, random);
  CropBox box{};
  DecodedImage image =
      readImageFile(file, transform.channels, draftSide(transform), [&](int64_t height, int64_t width) {
        box = randomResizedCropBox(height, width, ResizedCropRange{}, random);
        return box.top + box.height;
      });
  image = resizedCrop(image, box, transform.crop, transform.crop);
  randomFlip(image, transform, random);
  return image;
}

}  // namespace wb
