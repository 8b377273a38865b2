// A scripted stand-in for NVML (libnvidia-ml.so.1), loaded by the GPU sampler through WORKBENCH_NVML_LIBRARY:
// the NVML calls the sampler makes, answering with the figures a test set through the fake_nvml_* calls
// below (the test reaches them with dlopen of this same library, which returns the sampler's handle).
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct FakeDevice {
  std::string pci_bus_id;
  unsigned utilization = 0;
  unsigned long long memory_used = 0, memory_total = 0;
  int power_mw = -1;  // -1: NVML_ERROR_NOT_SUPPORTED
  unsigned power_limit_mw = 0;
  unsigned temperature_c = 0;
  unsigned sm_clock_mhz = 0;
  unsigned long long reasons = 0;
  bool lost = false;  // every read fails with NVML_ERROR_GPU_IS_LOST
};

std::mutex g_mutex;
std::vector<FakeDevice> g_devices;
int g_init_result = 0;
int g_initialized = 0;  // nvmlInit_v2 calls not yet shut down
long g_utilization_reads = 0;

FakeDevice* device(void* handle) {
  const auto index = reinterpret_cast<std::size_t>(handle) - 1;  // handles are index + 1: never null
  return index < g_devices.size() ? &g_devices[index] : nullptr;
}

}  // namespace

extern "C" {

// --- The script ---
void fake_nvml_reset(int init_result) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_devices.clear();
  g_init_result = init_result;
  g_utilization_reads = 0;
}

// Adds a device (or replaces the figures of the one at that bus id).
void fake_nvml_set_device(const char* pci_bus_id, unsigned utilization, unsigned long long memory_used,
                          unsigned long long memory_total, int power_mw, unsigned power_limit_mw,
                          unsigned temperature_c, unsigned sm_clock_mhz, unsigned long long reasons,
                          int lost) {
  std::lock_guard<std::mutex> lock(g_mutex);
  FakeDevice d{pci_bus_id,     utilization,   memory_used,  memory_total, power_mw,
               power_limit_mw, temperature_c, sm_clock_mhz, reasons,      lost != 0};
  for (FakeDevice& existing : g_devices) {
    if (existing.pci_bus_id == d.pci_bus_id) {
      existing = d;
      return;
    }
  }
  g_devices.push_back(d);
}

int fake_nvml_initialized() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_initialized;
}

long fake_nvml_utilization_reads() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_utilization_reads;
}

// --- NVML (return codes: 0 success, 2 invalid argument, 3 not supported, 6 not found, 15 GPU lost) ---
int nvmlInit_v2() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_init_result == 0) ++g_initialized;
  return g_init_result;
}

int nvmlShutdown() {
  std::lock_guard<std::mutex> lock(g_mutex);
  --g_initialized;
  return 0;
}

const char* nvmlErrorString(int code) {
  switch (code) {
    case 0:
      return "Success";
    case 2:
      return "Invalid Argument";
    case 3:
      return "Not Supported";
    case 6:
      return "Not Found";
    case 9:
      return "Driver Not Loaded";
    case 15:
      return "GPU is lost";
    default:
      return "Unknown Error";
  }
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** handle) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (index >= g_devices.size()) return 2;
  *handle = reinterpret_cast<void*>(static_cast<std::size_t>(index) + 1);
  return 0;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** handle) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (std::size_t i = 0; i < g_devices.size(); ++i) {
    if (g_devices[i].pci_bus_id == bus_id) {
      *handle = reinterpret_cast<void*>(i + 1);
      return 0;
    }
  }
  return 6;
}

struct FakeUtilization {
  unsigned gpu, memory;
};
struct FakeMemory {
  unsigned long long total, free, used;
};

int nvmlDeviceGetUtilizationRates(void* handle, FakeUtilization* out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const FakeDevice* d = device(handle);
  if (!d) return 2;
  if (d->lost) return 15;
  ++g_utilization_reads;
  *out = {d->utilization, 0};
  return 0;
}

int nvmlDeviceGetMemoryInfo(void* handle, FakeMemory* out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const FakeDevice* d = device(handle);
  if (!d || d->lost) return d ? 15 : 2;
  *out = {d->memory_total, d->memory_total - d->memory_used, d->memory_used};
  return 0;
}

int nvmlDeviceGetPowerUsage(void* handle, unsigned* milliwatts) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const FakeDevice* d = device(handle);
  if (!d || d->lost) return d ? 15 : 2;
  if (d->power_mw < 0) return 3;
  *milliwatts = static_cast<unsigned>(d->power_mw);
  return 0;
}

int nvmlDeviceGetEnforcedPowerLimit(void* handle, unsigned* milliwatts) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const FakeDevice* d = device(handle);
  if (!d || d->lost) return d ? 15 : 2;
  if (d->power_mw < 0) return 3;
  *milliwatts = d->power_limit_mw;
  return 0;
}

int nvmlDeviceGetTemperature(void* handle, int sensor, unsigned* celsius) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const FakeDevice* d = device(handle);
  if (!d || sensor != 0) return 2;
  *celsius = d->temperature_c;
  return 0;
}

int nvmlDeviceGetClockInfo(void* handle, int clock_type, unsigned* mhz) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const FakeDevice* d = device(handle);
  if (!d || clock_type != 1) return 2;  // the sampler asks for NVML_CLOCK_SM only
  *mhz = d->sm_clock_mhz;
  return 0;
}

int nvmlDeviceGetCurrentClocksEventReasons(void* handle, unsigned long long* reasons) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const FakeDevice* d = device(handle);
  if (!d) return 2;
  *reasons = d->reasons;
  return 0;
}

// What `workbench-cli info` lists (nvml_inventory.cpp): the count, a name after the index, the bus id.
int nvmlDeviceGetCount_v2(unsigned* count) {
  std::lock_guard<std::mutex> lock(g_mutex);
  *count = static_cast<unsigned>(g_devices.size());
  return 0;
}

int nvmlDeviceGetName(void* handle, char* name, unsigned length) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!device(handle)) return 2;
  const std::string text = "Fake GPU " + std::to_string(reinterpret_cast<std::size_t>(handle) - 1);
  if (length < text.size() + 1) return 7;  // NVML_ERROR_INSUFFICIENT_SIZE
  std::memcpy(name, text.c_str(), text.size() + 1);
  return 0;
}

struct FakePciInfo {  // nvmlPciInfo_t
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

int nvmlDeviceGetPciInfo_v3(void* handle, FakePciInfo* out) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const FakeDevice* d = device(handle);
  if (!d) return 2;
  *out = FakePciInfo{};
  std::strncpy(out->bus_id, d->pci_bus_id.c_str(), sizeof(out->bus_id) - 1);
  return 0;
}

int nvmlSystemGetDriverVersion(char* version, unsigned length) {
  const char text[] = "999.1.2";
  if (length < sizeof text) return 7;
  std::memcpy(version, text, sizeof text);
  return 0;
}

}  // extern "C"
