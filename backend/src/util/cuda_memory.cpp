#include "util/cuda_memory.h"

#ifdef WB_WITH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

namespace wb {

#ifdef WB_WITH_CUDA
void setCurrentCudaDevice(int device_index) {
  c10::cuda::set_device(static_cast<c10::DeviceIndex>(device_index));
}

CudaMemoryStats cudaMemoryStats(int device_index) {
  // The stats struct moved namespaces between 1.x and 2.x; `auto` keeps this file version-agnostic.
  const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(device_index);
  constexpr size_t kAggregate = 0;
  CudaMemoryStats out;
  out.valid = true;
  out.allocated_bytes = stats.allocated_bytes[kAggregate].current;
  out.reserved_bytes = stats.reserved_bytes[kAggregate].current;
  out.peak_allocated_bytes = stats.allocated_bytes[kAggregate].peak;
  return out;
}

void resetCudaPeakMemory(int device_index) {
  c10::cuda::CUDACachingAllocator::resetPeakStats(device_index);
}
#else
CudaMemoryStats cudaMemoryStats(int) {
  return {};
}
void resetCudaPeakMemory(int) {}
void setCurrentCudaDevice(int) {}
#endif

}  // namespace wb

#include "torch_compat.h"

#ifdef WB_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace wb::compat {

#ifdef WB_WITH_CUDA
std::string cudaDeviceName(int64_t index) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, static_cast<int>(index)) != cudaSuccess) {
    cudaGetLastError();  // answered here; it must not surface as a later kernel launch's error
    return "CUDA device";
  }
  return prop.name;
}
int64_t cudaDeviceMemory(int64_t index) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, static_cast<int>(index)) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return static_cast<int64_t>(prop.totalGlobalMem);
}
#else
std::string cudaDeviceName(int64_t) {
  return "CUDA device";
}
int64_t cudaDeviceMemory(int64_t) {
  return 0;
}
#endif

}  // namespace wb::compat
