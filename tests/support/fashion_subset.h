#pragma once
// The first 4,096 Fashion-MNIST training images (no validation split, no augmentation), loaded once per test
// executable: the compression and export tests train their small nets on it and compare outputs on it.

#include <torch/torch.h>

#include "data/dataset.h"
#include "model/layer.h"

namespace wb::test {

inline const Dataset& fashion() {
  static const Dataset data = [] {
    DataConfig config;
    config.dataset = "fashion-mnist";
    config.path = WB_FASHION_MNIST_DIR;
    config.limit = 4096;
    config.val_fraction = 0;
    config.augment_enabled = false;
    return loadDataset(config, 3);
  }();
  return data;
}

// Images shrunk to `shape`'s height and width (small ResNets are tested on 14x14 to stay fast).
inline torch::Tensor resized(const torch::Tensor& x, const Shape& shape) {
  if (x.size(2) == shape[1]) return x;
  return torch::adaptive_avg_pool2d(x, {shape[1], shape[2]});
}

}  // namespace wb::test
