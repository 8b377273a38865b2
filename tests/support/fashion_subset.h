#pragma once
// The first 4,096 Fashion-MNIST training images (no validation split, no augmentation), loaded once per test
// executable: the compression and export tests train their small nets on it and compare outputs on it.

#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "compress/model_artifact.h"
#include "data/dataset.h"
#include "model/layer.h"
#include "model/model.h"

namespace wb::test {

inline const Dataset& fashion() {
  static const Dataset data = [] {
    DataConfig config;
    config.dataset = DatasetName::FashionMnist;
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

// A layer list trained for `steps` Adam steps (lr 2e-3, batch 32) on the subset, from `seed`, as a float
// artifact: trained weights and batch-norm statistics make output comparisons meaningful (not a net of
// near-equal logits).
inline ModelArtifact trainedArtifact(const nlohmann::json& layers, const Shape& shape, int steps,
                                     uint64_t seed) {
  torch::manual_seed(seed);
  ModelConfig config;
  config.preset = "";
  config.layers = layers;
  auto model = buildModel(config, shape, 10);
  torch::optim::Adam opt(model->parameters(), torch::optim::AdamOptions(2e-3));
  model->train(true);
  const Dataset& d = fashion();
  for (int s = 0; s < steps; ++s) {
    const int64_t from = (s * 32) % (d.train.x.size(0) - 32);
    opt.zero_grad();
    torch::nn::functional::cross_entropy(model->forward(resized(d.train.x.slice(0, from, from + 32), shape)),
                                         d.train.y.slice(0, from, from + 32))
        .backward();
    opt.step();
  }
  model->train(false);
  return artifactFromModel(*model, layers, "", shape, 10);
}

}  // namespace wb::test
