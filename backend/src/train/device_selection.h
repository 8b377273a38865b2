#pragma once
#include <torch/torch.h>

#include <string>

#include "workbench/experiment.h"

namespace wb {

// "cpu", "cuda", "cuda:N" → a device that exists here; throws UserError otherwise, saying what there is.
torch::Device resolveDevice(const std::string& id);
// Empty when the device exists, else what is wrong and what to do.
std::string checkDevice(const std::string& id);

}  // namespace wb
