#pragma once
#include <torch/torch.h>

#include <optional>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

// "cpu", "cuda", "cuda:N" → a device that exists here; throws UserError otherwise, saying what there is.
torch::Device resolveDevice(const std::string& id);
// Empty when the device exists, else what is wrong and what to do.
std::string checkDevice(const std::string& id);
// The CUDA device index `id` names ("cuda" is 0), or nullopt when it is not "cuda" or "cuda:N".
std::optional<int64_t> cudaIndex(const std::string& id);
// train.devices as a whole, one data-parallel rank per entry: the ranks of a run are all CPU ranks (Gloo) or
// all CUDA devices (NCCL), each CUDA device at most once, and the build has the collective backend that
// several ranks of that kind need. Issues at "train.devices" or "train.devices[i]"; none when it can run.
// Whether each entry exists is checkDevice's business.
std::vector<ValidationIssue> checkDeviceSet(const std::vector<std::string>& devices);
// train.amp ("off" | "bf16" | "fp16") on these devices: empty when it can run there, else why not and what to
// use instead. bf16 runs on the CPU and on CUDA; fp16 (with loss scaling) needs every device to be CUDA.
std::string checkAmp(Precision amp, const std::vector<std::string>& devices);

}  // namespace wb
