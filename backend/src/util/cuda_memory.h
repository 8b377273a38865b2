#pragma once
// CUDA caching-allocator statistics for one device. Implemented in cuda_memory.cpp (behind WB_WITH_CUDA) when
// LibTorch has CUDA (Debian's c10/cuda headers do not compile without the CUDA runtime), else reports
// nothing.

#include <cstdint>

namespace wb {

struct CudaMemoryStats {
  bool valid = false;
  int64_t allocated_bytes = 0;
  int64_t reserved_bytes = 0;
  int64_t peak_allocated_bytes = 0;
};

CudaMemoryStats cudaMemoryStats(int device_index);
void resetCudaPeakMemory(int device_index);
// The calling thread's current CUDA device (data-parallel ranks are threads, one device each). No-op without
// CUDA.
void setCurrentCudaDevice(int device_index);

}  // namespace wb
