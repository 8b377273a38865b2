#include "system/nvml_library.h"

#include <dlfcn.h>

#include <cstdlib>

namespace wb {
namespace {

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
constexpr int kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
constexpr int kNvmlClockSm = 1;         // NVML_CLOCK_SM

const char* kDefaultLibrary = "libnvidia-ml.so.1";

}  // namespace

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

}  // namespace wb
