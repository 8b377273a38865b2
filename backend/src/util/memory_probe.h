#pragma once
// Memory measurements for trials that must know what one training step needs: the host memory the system
// reports available, and a CUDA device's free memory and cache (implemented only in CUDA builds; elsewhere
// they report nothing). What a step allocates on the host: host_allocation_meter.h.

#include <cstdint>

namespace wb {

// MemAvailable from /proc/meminfo: what the system can still give without swapping; 0 where unavailable.
int64_t availableHostMemoryBytes();

struct CudaDeviceMemory {
  bool valid = false;
  int64_t free_bytes = 0;
  int64_t total_bytes = 0;
};
// cudaMemGetInfo for the device (other processes' use counts against `free`).
CudaDeviceMemory cudaDeviceMemory(int device_index);
// Returns the caching allocator's unused blocks to the driver (torch.cuda.empty_cache()); no-op without CUDA.
void releaseCachedCudaMemory();

}  // namespace wb
