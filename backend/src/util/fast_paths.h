#pragma once
// The experiment's fast-path switches (train.cudnn_benchmark, tf32, channels_last, pinned_memory,
// data_on_device), applied where the trainer and the benchmark need them. None needs CUDA headers:
// cuDNN/TF32 are flags of LibTorch's global context, which CPU builds have too (they then do nothing).

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

// train.cudnn_benchmark and train.tf32 (both cuBLAS matmuls and cuDNN convolutions). Process-wide: call once
// per run, before the first step, from any thread. Returns a line for the run's log.
std::string applyCudaBackendSwitches(const TrainConfig& train);

// Whether train.channels_last applies: asked for, and the samples are images [C, H, W] (conv nets).
// It works on the CPU too (oneDNN convolutions take NHWC); the effect is largest on CUDA tensor cores.
bool useChannelsLast(const TrainConfig& train, const std::vector<int64_t>& sample_shape);

// Converts the 4-D tensors among `tensors` (a model's parameters and buffers) to channels_last in place
// (set_data: the tensors stay the same objects, so do it before or after creating the optimizer alike,
// but before its state — Adam's moments — is created by a first step).
void convertToChannelsLast(const std::vector<torch::Tensor>& tensors);

// train.data_on_device: whether the whole training split (features + labels, `dataset_bytes`) should live on
// `device` so batches are gathered there without a host copy. "auto": on CUDA when it takes at most a
// quarter of the device's memory; never on the CPU (it is already there).
struct DataPlacement {
  bool on_device = false;
  std::string reason;  // for the log
};
DataPlacement chooseDataPlacement(const TrainConfig& train, const torch::Device& device,
                                  int64_t dataset_bytes);

}  // namespace wb
