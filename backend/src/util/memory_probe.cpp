#include "util/memory_probe.h"

#include <cstdio>
#include <cstring>

#ifdef WB_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

#include "torch_compat.h"
#if WB_TORCH_AT_LEAST(2, 0)
#include <ATen/cuda/CUDAContextLight.h>
#endif
#endif

namespace wb {
namespace {

// The value of a "Key:   123 kB" line of a /proc file, in bytes; -1 when absent.
int64_t procKilobytes(const char* file, const char* key) {
  std::FILE* f = std::fopen(file, "r");
  if (!f) return -1;
  char line[256];
  const size_t key_length = std::strlen(key);
  int64_t bytes = -1;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, key, key_length) == 0 && line[key_length] == ':') {
      long long kb = 0;
      if (std::sscanf(line + key_length + 1, "%lld", &kb) == 1) bytes = static_cast<int64_t>(kb) * 1024;
      break;
    }
  }
  std::fclose(f);
  return bytes;
}

}  // namespace

int64_t availableHostMemoryBytes() {
  const int64_t bytes = procKilobytes("/proc/meminfo", "MemAvailable");
  return bytes < 0 ? 0 : bytes;
}

#ifdef WB_WITH_CUDA
CudaDeviceMemory cudaDeviceMemory(int device_index) {
  CudaDeviceMemory out;
  c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(device_index));
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return out;
  out.valid = true;
  out.free_bytes = static_cast<int64_t>(free_bytes);
  out.total_bytes = static_cast<int64_t>(total_bytes);
  return out;
}

void releaseCachedCudaMemory() {
  // LibTorch 2.x keeps a cuBLAS workspace per handle and stream in the caching allocator (32 MiB each on
  // Hopper, allocated and never freed by emptyCache): seen as 65 MiB still allocated after a search on an
  // H200. cuBLAS makes a new one at its next call.
#if WB_TORCH_AT_LEAST(2, 0)
  at::cuda::clearCublasWorkspaces();
#endif
  c10::cuda::CUDACachingAllocator::emptyCache();
}
#else
CudaDeviceMemory cudaDeviceMemory(int) {
  return {};
}
void releaseCachedCudaMemory() {}
#endif

}  // namespace wb
