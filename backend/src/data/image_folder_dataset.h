#pragma once
// data.dataset "image_folder": a user's own images in torchvision's ImageFolder layout
// (data.path/<class>/<file>), read by the loader's workers batch by batch instead of into memory. The splits:
//   test        data.test_path (another folder with the same classes), else a seeded data.test_fraction share
//   limit       data.limit > 0 keeps a seeded subset of that many of the rest (the first N would be one
//   class) validation  the seeded data.val_fraction share of those, as for the other datasets
// Files that cannot be read stop the run naming them (data.images.bad_files "error") or are left out and
// listed in the description ("skip"); the statistics that normalize every split are the training files'
// (image_scan.h).

#include <cstdint>

#include "data/dataset.h"
#include "data/image_scan.h"
#include "workbench/experiment.h"

namespace wb {

Dataset loadImageFolder(const DataConfig& config, uint64_t seed);

// The files a run of `config` would find unreadable, by the same pass over every file (and its cache) that
// loadImageFolder makes: after it, a run's start reads the scan from the cache. Reads every file.
std::vector<BadImageFile> unreadableImageFiles(const DataConfig& config, uint64_t seed);

// From the folder listing and one decoded file, without the pass over every file.
DataShape probeImageFolder(const DataConfig& config);

}  // namespace wb
