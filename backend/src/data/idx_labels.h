#pragma once
// The labels half of an IDX pair on its own: probeDataShape reads it (60 kB) to learn the class count and
// check the sample count without touching the images.

#include <torch/torch.h>

#include <string>

namespace wb {

// int64 [N]; throws DataError as readIdx does.
torch::Tensor readIdxLabels(const std::string& labels_file);

}  // namespace wb
