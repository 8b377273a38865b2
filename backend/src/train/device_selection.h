#pragma once
#include <torch/torch.h>

#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

// "cpu", "cuda", "cuda:N" → a device that exists here; throws UserError otherwise, saying what there is.
torch::Device resolveDevice(const std::string& id);
// Empty when the device exists, else what is wrong and what to do.
std::string checkDevice(const std::string& id);
// train.amp ("off" | "bf16" | "fp16") on these devices: empty when it can run there, else why not and what to
// use instead. bf16 runs on the CPU and on CUDA; fp16 (with loss scaling) needs every device to be CUDA.
std::string checkAmp(const std::string& amp, const std::vector<std::string>& devices);

}  // namespace wb
