#pragma once
// The random number generators a training step draws from (dropout, stochastic layers): torch's default CPU
// generator and, in CUDA builds, each device's default CUDA generator. Saved in checkpoints and restored on
// resume so a resumed run draws exactly what the uninterrupted one would have.

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

namespace wb {

// ("cpu", state) and ("cuda:N", state) for every CUDA device that has been initialized.
std::vector<std::pair<std::string, torch::Tensor>> captureRngStates();
// Restores those it is given; a CUDA entry without CUDA (a checkpoint from a GPU machine resumed on a CPU
// one) is skipped.
void restoreRngStates(const std::vector<std::pair<std::string, torch::Tensor>>& states);

}  // namespace wb
