#pragma once
// What the NVIDIA driver's NVML says of this machine, for `workbench-cli info` (what a GPU user runs first):
// whether it loads, and why not; the driver's version; every GPU it sees, by NVML's index (PCI order,
// whatever CUDA_VISIBLE_DEVICES says), with its name, PCI bus id and memory. The sampler behind the GPU chart
// and the CLI's GPU figures reads the same library (backend/src/system/). Plain C++; needs no GPU and no
// CUDA.

#include <cstdint>
#include <string>
#include <vector>

namespace wb {

struct NvmlGpu {
  unsigned index = 0;
  std::string name;        // "NVIDIA H100 80GB HBM3"; empty where NVML does not say
  std::string pci_bus_id;  // "00000000:3B:00.0"
  int64_t memory_total_bytes = -1;
  std::string error;  // set when NVML has the index but cannot open the device
};

struct NvmlInventory {
  std::string library;  // the file loaded (libnvidia-ml.so.1, or WORKBENCH_NVML_LIBRARY)
  bool loaded = false;
  std::string why_not;  // when not loaded, or when it cannot count its GPUs
  std::string driver_version;
  std::vector<NvmlGpu> gpus;
};

NvmlInventory queryNvmlInventory();

// The inventory in lines for a terminal: "NVML: libnvidia-ml.so.1, driver 580.82.07, 1 GPU" then a line a
// GPU, or "NVML: not loaded (<why>); ..." with what that means for the figures.
std::vector<std::string> describeNvmlInventory(const NvmlInventory& inventory);

}  // namespace wb
