#pragma once
// One pass over an image folder's files before training: every file decoded and transformed for evaluation
// once, to find the ones that cannot be read (named, for data.images.bad_files), to learn the size the model
// gets, and to measure the training split's per-channel mean and std (torchvision's recipe: ToTensor units,
// population std) — the numbers Normalize will use and the export carries. The result is kept in the user's
// cache folder ($XDG_CACHE_HOME or ~/.cache, under torch-workbench/), keyed by the files' paths, sizes and
// modification times, the transform and the split, so the pass runs once per folder, transform and split. The
// image folder itself is never written.

#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "images/image_transform.h"

namespace wb {

struct BadImageFile {
  std::string file;
  std::string reason;
};

struct ImageScan {
  Normalization normalization;    // over the files marked training
  int64_t height = 0, width = 0;  // every readable file's size after the evaluation transform
  std::vector<BadImageFile> bad;  // in `files` order
  bool from_cache = false;
  std::string cache_file;  // where it is kept ("" when it could not be written)
};

// `training[i]`: whether files[i] counts toward the statistics. `split_key` names what else decided the files
// (seed, limit, fractions): part of the cache key with the files' paths, sizes and times and the transform.
// Throws DataError naming the file when the readable files come out at different sizes.
ImageScan scanImageFiles(const std::string& folder, const std::vector<std::string>& files,
                         const std::vector<char>& training, const ImageTransform& transform, int workers,
                         const std::string& split_key);

}  // namespace wb
