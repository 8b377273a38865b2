#include "system/nvml_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

namespace wb {
// Named, not anonymous: Functions, declared in the header, holds pointers to functions taking these types
// (and a unity build compiles this file inside another, where GCC warns of anonymous types in such a member).
namespace nvml_abi {

// NVML's ABI as its documentation (and nvml.h) declares it: nvmlReturn_t is an int-sized enum, 0 = success.
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr NvmlReturn kNvmlNotSupported = 3;
struct NvmlUtilization {  // nvmlUtilization_t
  unsigned int gpu;
  unsigned int memory;
};
struct NvmlMemory {  // nvmlMemory_t (v1, bytes)
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

constexpr unsigned kNvmlNameSize = 96;           // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kNvmlDriverVersionSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr int kNvmlTemperatureGpu = 0;           // NVML_TEMPERATURE_GPU
constexpr int kNvmlClockSm = 1;                  // NVML_CLOCK_SM

constexpr const char* kDefaultLibrary = "libnvidia-ml.so.1";

struct NvmlPciInfo {  // nvmlPciInfo_t, as nvmlDeviceGetPciInfo_v3 fills it
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_subsystem_id;
  char bus_id[32];
};

}  // namespace nvml_abi

using namespace nvml_abi;

struct NvmlLibrary::Functions {
  NvmlReturn (*init)();
  NvmlReturn (*shutdown)();
  const char* (*error_string)(NvmlReturn);
  NvmlReturn (*by_index)(unsigned int, NvmlDevice*);
  NvmlReturn (*by_pci_bus_id)(const char*, NvmlDevice*);
  NvmlReturn (*utilization)(NvmlDevice, NvmlUtilization*);
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*);
  NvmlReturn (*power)(NvmlDevice, unsigned int*);
  NvmlReturn (*power_limit)(NvmlDevice, unsigned int*);
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned int*);
  NvmlReturn (*clock)(NvmlDevice, int, unsigned int*);
  // Renamed "clocks event reasons" in CUDA 12.2's NVML; drivers before it have only the throttle name. Null
  // when neither is there: the window then lists no reasons.
  NvmlReturn (*throttle_reasons)(NvmlDevice, unsigned long long*);
  // What `workbench-cli info` lists; null where this NVML lacks them (the sampler needs none of them).
  NvmlReturn (*count)(unsigned int*);
  NvmlReturn (*name)(NvmlDevice, char*, unsigned int);
  NvmlReturn (*pci_info)(NvmlDevice, NvmlPciInfo*);
  NvmlReturn (*driver_version)(char*, unsigned int);
};

namespace {

// Resolves `name` into `slot`; false (with `why`) when the library lacks it.
template <typename F>
bool resolve(void* handle, const char* name, F& slot, std::string& why) {
  slot = reinterpret_cast<F>(dlsym(handle, name));
  if (slot) return true;
  why = NvmlLibrary::libraryPath() + " has no " + name;
  return false;
}

bool resolveAll(void* handle, NvmlLibrary::Functions& f, std::string& why) {
  const bool all = resolve(handle, "nvmlInit_v2", f.init, why) &&
                   resolve(handle, "nvmlShutdown", f.shutdown, why) &&
                   resolve(handle, "nvmlErrorString", f.error_string, why) &&
                   resolve(handle, "nvmlDeviceGetHandleByIndex_v2", f.by_index, why) &&
                   resolve(handle, "nvmlDeviceGetHandleByPciBusId_v2", f.by_pci_bus_id, why) &&
                   resolve(handle, "nvmlDeviceGetUtilizationRates", f.utilization, why) &&
                   resolve(handle, "nvmlDeviceGetMemoryInfo", f.memory, why) &&
                   resolve(handle, "nvmlDeviceGetPowerUsage", f.power, why) &&
                   resolve(handle, "nvmlDeviceGetEnforcedPowerLimit", f.power_limit, why) &&
                   resolve(handle, "nvmlDeviceGetTemperature", f.temperature, why) &&
                   resolve(handle, "nvmlDeviceGetClockInfo", f.clock, why);
  if (!all) return false;
  std::string optional_why;
  if (!resolve(handle, "nvmlDeviceGetCurrentClocksEventReasons", f.throttle_reasons, optional_why)) {
    resolve(handle, "nvmlDeviceGetCurrentClocksThrottleReasons", f.throttle_reasons, optional_why);
  }
  resolve(handle, "nvmlDeviceGetCount_v2", f.count, optional_why);
  resolve(handle, "nvmlDeviceGetName", f.name, optional_why);
  resolve(handle, "nvmlDeviceGetPciInfo_v3", f.pci_info, optional_why);
  resolve(handle, "nvmlSystemGetDriverVersion", f.driver_version, optional_why);
  return true;
}

}  // namespace

std::string NvmlLibrary::libraryPath() {
  const char* named = std::getenv("WORKBENCH_NVML_LIBRARY");
  return named && *named ? named : kDefaultLibrary;
}

std::unique_ptr<NvmlLibrary> NvmlLibrary::open(std::string& why) {
  const std::string path = libraryPath();
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* error = dlerror();
    why = "cannot load " + path + (error ? std::string(": ") + error : std::string());
    return nullptr;
  }
  auto functions = std::make_unique<Functions>();
  if (!resolveAll(handle, *functions, why)) {
    dlclose(handle);
    return nullptr;
  }
  if (const NvmlReturn code = functions->init(); code != kNvmlSuccess) {
    const char* text = functions->error_string(code);
    why = "nvmlInit_v2 failed: " + std::string(text ? text : "error " + std::to_string(code));
    dlclose(handle);
    return nullptr;
  }
  return std::unique_ptr<NvmlLibrary>(new NvmlLibrary(handle, std::move(functions)));
}

NvmlLibrary::NvmlLibrary(void* handle, std::unique_ptr<Functions> functions)
    : m_handle(handle), m_functions(std::move(functions)) {}

NvmlLibrary::~NvmlLibrary() {
  m_functions->shutdown();
  dlclose(m_handle);
}

std::string NvmlLibrary::errorString(int code) const {
  const char* text = m_functions->error_string(code);
  return text ? text : "NVML error " + std::to_string(code);
}

std::optional<NvmlDevice> NvmlLibrary::deviceByPciBusId(const std::string& bus_id, std::string& why) const {
  NvmlDevice device = nullptr;
  const NvmlReturn code = m_functions->by_pci_bus_id(bus_id.c_str(), &device);
  if (code == kNvmlSuccess) return device;
  why = "NVML has no device at PCI bus id " + bus_id + ": " + errorString(code);
  return std::nullopt;
}

std::optional<NvmlDevice> NvmlLibrary::deviceByIndex(unsigned index, std::string& why) const {
  NvmlDevice device = nullptr;
  const NvmlReturn code = m_functions->by_index(index, &device);
  if (code == kNvmlSuccess) return device;
  why = "NVML has no device " + std::to_string(index) + ": " + errorString(code);
  return std::nullopt;
}

NvmlReading NvmlLibrary::read(NvmlDevice device) const {
  NvmlReading r;
  const Functions& f = *m_functions;
  NvmlUtilization utilization{};
  if (const NvmlReturn code = f.utilization(device, &utilization); code != kNvmlSuccess) {
    r.error = code == kNvmlNotSupported ? "this GPU does not report its utilization to NVML"
                                        : "NVML could not read the GPU's utilization: " + errorString(code);
    return r;
  }
  r.utilization_pct = utilization.gpu;
  if (NvmlMemory memory{}; f.memory(device, &memory) == kNvmlSuccess) {
    r.memory_used_bytes = static_cast<int64_t>(memory.used);
    r.memory_total_bytes = static_cast<int64_t>(memory.total);
  }
  unsigned int value = 0;
  if (f.power(device, &value) == kNvmlSuccess) r.power_w = value / 1000.0;  // milliwatts
  if (f.power_limit(device, &value) == kNvmlSuccess) r.power_limit_w = value / 1000.0;
  if (f.temperature(device, kNvmlTemperatureGpu, &value) == kNvmlSuccess) r.temperature_c = value;
  if (f.clock(device, kNvmlClockSm, &value) == kNvmlSuccess) r.sm_clock_mhz = value;
  unsigned long long reasons = 0;
  if (f.throttle_reasons && f.throttle_reasons(device, &reasons) == kNvmlSuccess)
    r.throttle_reasons = reasons;
  return r;
}

int NvmlLibrary::deviceCount(std::string& why) const {
  if (!m_functions->count) {
    why = libraryPath() + " has no nvmlDeviceGetCount_v2";
    return -1;
  }
  unsigned int count = 0;
  if (const NvmlReturn code = m_functions->count(&count); code != kNvmlSuccess) {
    why = "nvmlDeviceGetCount_v2 failed: " + errorString(code);
    return -1;
  }
  return static_cast<int>(count);
}

std::string NvmlLibrary::deviceName(NvmlDevice device) const {
  char name[kNvmlNameSize] = {};
  if (!m_functions->name || m_functions->name(device, name, kNvmlNameSize) != kNvmlSuccess) return {};
  return std::string(name, strnlen(name, kNvmlNameSize));
}

std::string NvmlLibrary::devicePciBusId(NvmlDevice device) const {
  NvmlPciInfo info{};
  if (!m_functions->pci_info || m_functions->pci_info(device, &info) != kNvmlSuccess) return {};
  return std::string(info.bus_id, strnlen(info.bus_id, sizeof(info.bus_id)));
}

std::string NvmlLibrary::driverVersion() const {
  char version[kNvmlDriverVersionSize] = {};
  if (!m_functions->driver_version ||
      m_functions->driver_version(version, kNvmlDriverVersionSize) != kNvmlSuccess)
    return {};
  return std::string(version, strnlen(version, kNvmlDriverVersionSize));
}

}  // namespace wb
