#pragma once
// NVML, the NVIDIA driver's management library, loaded at run time: the build links no NVML, so the engine
// runs where there is no driver (CPU machines) and says "no NVML" with the loader's reason there. The
// library is libnvidia-ml.so.1 (installed with the driver), or the one WORKBENCH_NVML_LIBRARY names (the
// tests load a scripted fake that way). Only the few calls the GPU sampler needs are resolved; the types
// they take are declared in nvml_library.cpp from NVML's documented ABI (nvml.h is not needed to build).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace wb {

// NVML's device handle (nvmlDevice_t), opaque.
using NvmlDevice = void*;

// One reading of one device. `error` is set when the device could not be read at all (its utilization
// failed: a GPU fallen off the bus); a figure the device does not report (NVML_ERROR_NOT_SUPPORTED) is -1.
struct NvmlReading {
  std::string error;
  double utilization_pct = -1;
  int64_t memory_used_bytes = -1;
  int64_t memory_total_bytes = -1;
  double power_w = -1;
  double power_limit_w = -1;
  double temperature_c = -1;
  double sm_clock_mhz = -1;
  uint64_t throttle_reasons = 0;  // NVML's clocks event reason bits
};

class NvmlLibrary {
 public:
  struct Functions;

  // Loads and initializes NVML; null with `why` ("cannot load libnvidia-ml.so.1: <dlerror>", "nvmlInit_v2
  // failed: Driver Not Loaded") when it cannot.
  static std::unique_ptr<NvmlLibrary> open(std::string& why);
  ~NvmlLibrary();  // nvmlShutdown, then the library is unloaded
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The path open() loads: WORKBENCH_NVML_LIBRARY when set and not empty, else libnvidia-ml.so.1.
  static std::string libraryPath();

  // A device by its PCI bus id ("0000:3b:00.0", as cudaDeviceGetPCIBusId writes it), or by NVML's own index
  // (PCI order over every GPU of the machine, whatever CUDA_VISIBLE_DEVICES says). None with `why`.
  std::optional<NvmlDevice> deviceByPciBusId(const std::string& bus_id, std::string& why) const;
  std::optional<NvmlDevice> deviceByIndex(unsigned index, std::string& why) const;

  // Reads the device's figures now; thread-safe (NVML is), cheap (no GPU work), never synchronizes CUDA.
  NvmlReading read(NvmlDevice device) const;

  // What the driver has, for `workbench-cli info` (nvml_inventory.cpp). Each is empty (a count of -1) with
  // `why` where this NVML lacks the call or the call fails.
  int deviceCount(std::string& why) const;              // every GPU of the machine, by NVML's index
  std::string deviceName(NvmlDevice device) const;      // "NVIDIA H100 80GB HBM3"
  std::string devicePciBusId(NvmlDevice device) const;  // "00000000:3B:00.0", as NVML writes it
  std::string driverVersion() const;                    // "580.82.07"

 private:
  NvmlLibrary(void* handle, std::unique_ptr<Functions> functions);
  std::string errorString(int code) const;

  void* m_handle;
  std::unique_ptr<Functions> m_functions;
};

}  // namespace wb
