#pragma once
// Small real experiments for the train tests: Fashion-MNIST subsets and the MLP, a few seconds each.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/temporary_folder.h"
#include "workbench/experiment.h"

namespace wb::test {

// A new empty folder, removed when the current test ends (support/temporary_folder.h).
inline std::string freshDir(const std::string& name) {
  return folderForThisTest("test-" + name);
}

inline Experiment smallMlpExperiment(const std::string& runs_dir) {
  Experiment e;
  e.name = "small-mlp";
  e.data.dataset = DatasetName::FashionMnist;
  e.data.path = WB_FASHION_MNIST_DIR;
  e.data.limit = 2000;
  e.data.val_fraction = 0.1;
  e.data.augment_enabled = false;
  e.model.preset = "mlp";
  e.train.epochs = 2;
  e.train.batch_size = 64;
  e.train.log_every_steps = 5;
  e.train.threads = 2;
  e.output.runs_dir = runs_dir;
  return e;
}

// Random images of `shape` in `classes` classes instead of the dataset's files (the GPU machine has none),
// and no preset: the caller writes model.layers.
inline void useSyntheticImages(Experiment& e, int64_t samples, std::vector<int64_t> shape = {1, 28, 28},
                               int64_t classes = 10) {
  e.data.dataset = DatasetName::Synthetic;
  e.data.path = "";
  e.data.limit = 0;
  e.data.synthetic_samples = samples;
  e.data.synthetic_classes = classes;
  e.data.synthetic_shape = std::move(shape);
  e.model.preset = "";
}

}  // namespace wb::test
