#pragma once
// What an experiment's data look like before it trains: the classes with their sample counts, the shape the
// model gets, the loader's workers, and a few training samples after preprocessing (what the model will see,
// augmentation included) as 8-bit pixels. The window's Data tab shows it; `workbench-cli check` prints it.
// Plain C++.

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

struct PreviewSample {
  std::string class_name;
  std::string file;  // image folders: the file it was read from
  int height = 0;
  int width = 0;
  int channels = 0;             // 1 grey, 3 RGB
  std::vector<uint8_t> pixels;  // height x width x channels, row after row
};

struct DataPreview {
  DatasetName dataset = DatasetName::FashionMnist;  // data.dataset
  std::string source;                               // the folder or file read
  std::vector<std::string> class_names;
  std::vector<int64_t> class_counts;  // files per class (image folders: training folder); empty when unknown
  std::vector<int64_t> sample_shape;  // what the model gets, without the batch dimension
  int64_t train_samples = 0;          // before data.limit and the validation share
  std::string preprocessing;          // "Resize(256), CenterCrop(224); training: RandomResizedCrop(224), ..."
  std::string loader;                 // "2 workers, 2 batches prefetched"
  std::vector<PreviewSample> samples;  // image folders: one per class, up to the count asked for
};

// Throws UserError / DataError naming what cannot be read, as a run would.
DataPreview previewData(const Experiment& experiment, int max_samples);

struct UnreadableFile {
  std::string file;
  std::string reason;  // the decoder's words, naming the file
};

// The image files a run of `experiment` would find unreadable (data.images.bad_files decides whether they
// stop it), by the pass over every file that a run makes at its start: its result is cached, so the run's
// start does not read them again. Empty for the built-in datasets. Reads every file: never on a UI thread.
// Throws UserError / DataError as a run would (a folder that cannot be listed, files of different sizes).
std::vector<UnreadableFile> findUnreadableFiles(const Experiment& experiment);

}  // namespace wb
