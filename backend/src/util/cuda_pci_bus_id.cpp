#include "util/cuda_pci_bus_id.h"

#ifdef WB_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace wb {

#ifdef WB_WITH_CUDA
std::string cudaPciBusId(int device_index) {
  char bus_id[32] = {};  // "domain:bus:device.function", 13 characters with the terminator; room to spare
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device_index) != cudaSuccess) {
    cudaGetLastError();  // the error is answered here (empty id); it must not surface in a later CUDA call
    return {};
  }
  return bus_id;
}
#else
std::string cudaPciBusId(int) {
  return {};
}
#endif

}  // namespace wb
