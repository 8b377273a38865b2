// queryNvmlInventory and describeNvmlInventory (workbench/nvml_inventory.h).
#include "workbench/nvml_inventory.h"

#include <cstdio>

#include "system/nvml_library.h"

namespace wb {

NvmlInventory queryNvmlInventory() {
  NvmlInventory inventory;
  inventory.library = NvmlLibrary::libraryPath();
  const std::unique_ptr<NvmlLibrary> nvml = NvmlLibrary::open(inventory.why_not);
  if (!nvml) return inventory;
  inventory.loaded = true;
  inventory.driver_version = nvml->driverVersion();
  const int count = nvml->deviceCount(inventory.why_not);
  for (int i = 0; i < count; ++i) {
    NvmlGpu gpu;
    gpu.index = static_cast<unsigned>(i);
    const std::optional<NvmlDevice> device = nvml->deviceByIndex(gpu.index, gpu.error);
    if (device) {
      gpu.name = nvml->deviceName(*device);
      gpu.pci_bus_id = nvml->devicePciBusId(*device);
      gpu.memory_total_bytes = nvml->read(*device).memory_total_bytes;
    }
    inventory.gpus.push_back(std::move(gpu));
  }
  return inventory;
}

std::vector<std::string> describeNvmlInventory(const NvmlInventory& inventory) {
  if (!inventory.loaded) {
    return {
        "NVML: not loaded (" + inventory.why_not +
        "): no GPU utilization, power, temperature or clocks in the charts and progress lines. The NVIDIA "
        "driver installs libnvidia-ml.so.1; WORKBENCH_NVML_LIBRARY names another file."};
  }
  const size_t n = inventory.gpus.size();
  std::string head = "NVML: " + inventory.library +
                     (inventory.driver_version.empty() ? "" : ", driver " + inventory.driver_version) + ", ";
  head += inventory.why_not.empty() ? std::to_string(n) + (n == 1 ? " GPU" : " GPUs")
                                    : "its GPUs not counted (" + inventory.why_not + ")";
  std::vector<std::string> lines{head};
  for (const NvmlGpu& gpu : inventory.gpus) {
    std::string line = "  " + std::to_string(gpu.index) + ": ";
    if (!gpu.error.empty()) {
      lines.push_back(line + gpu.error);
      continue;
    }
    line += (gpu.name.empty() ? "(no name)" : gpu.name) + " at PCI bus id " +
            (gpu.pci_bus_id.empty() ? "(unknown)" : gpu.pci_bus_id);
    if (gpu.memory_total_bytes > 0) {
      char memory[32];
      std::snprintf(memory, sizeof memory, ", %.1f GiB",
                    static_cast<double>(gpu.memory_total_bytes) / (1 << 30));
      line += memory;
    }
    lines.push_back(line);
  }
  return lines;
}

}  // namespace wb
