// Synthetic classification data for trying the workbench without downloads and for tests of the training
// loop: each class has its own random mean pattern (one N(0, 1) value per feature) and every sample is its
// class's pattern plus N(0, 1) noise. Class means are about sqrt(2 * features) noise widths apart, so with a
// few dozen features or more a small MLP separates the classes in a few hundred steps.

#include <string>
#include <vector>

#include "data/dataset_readers.h"
#include "data/seed_mixing.h"
#include "workbench/errors.h"

namespace wb {

RawSplit makeSynthetic(int64_t samples, int64_t classes, const std::vector<int64_t>& shape, uint64_t seed) {
  if (samples < 1)
    throw UserError("data.synthetic_samples must be at least 1, got " + std::to_string(samples));
  if (classes < 1)
    throw UserError("data.synthetic_classes must be at least 1, got " + std::to_string(classes));
  if (shape.empty()) throw UserError("data.synthetic_shape must list at least one dimension");
  int64_t features = 1;
  for (const int64_t size : shape) {
    if (size < 1) throw UserError("data.synthetic_shape sizes must be positive, got " + std::to_string(size));
    features *= size;
  }

  // One generator drawn in a fixed order (patterns, label order, noise) makes the data a function of the
  // seed.
  torch::Generator generator = makeCpuGenerator(seed);
  const torch::Tensor patterns = torch::randn({classes, features}, generator, torch::kFloat32);
  // Balanced classes in a random order.
  const torch::Tensor labels = torch::randperm(samples, generator, torch::kLong).remainder(classes);
  torch::Tensor inputs = torch::randn({samples, features}, generator, torch::kFloat32);
  inputs.add_(patterns.index_select(0, labels));

  std::vector<int64_t> full_shape = {samples};
  full_shape.insert(full_shape.end(), shape.begin(), shape.end());
  return RawSplit{inputs.reshape(full_shape), labels};
}

}  // namespace wb
