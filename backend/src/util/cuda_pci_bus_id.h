#pragma once
// The PCI bus id of a CUDA device ("0000:3b:00.0"): how NVML is told which GPU cuda:N is (the sampler's
// system/gpu_sampler.h says why an index would not do).

#include <string>

namespace wb {

// Empty without CUDA in this build or when CUDA cannot say.
std::string cudaPciBusId(int device_index);

}  // namespace wb
