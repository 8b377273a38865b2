#include "system/gpu_sampler.h"

#include <algorithm>

#include "system/throttle_reasons.h"

namespace wb {

struct GpuSampler::Device {
  std::optional<NvmlDevice> handle;
  std::string not_sampled;  // why this device has no figures (no NVML, not found, a read that failed)
  // The window so far (since the last take).
  int64_t samples = 0;
  double utilization_sum = 0, power_sum = 0, clock_sum = 0;
  int64_t power_samples = 0, clock_samples = 0;
  double temperature_max = -1;
  uint64_t reasons = 0;
  // The latest reading, for windows shorter than the interval.
  std::optional<NvmlReading> last;

  void add(const NvmlReading& r) {
    if (!r.error.empty()) {
      not_sampled = "NVML: " + r.error;
      return;
    }
    not_sampled.clear();
    ++samples;
    utilization_sum += r.utilization_pct;
    if (r.power_w >= 0) {
      power_sum += r.power_w;
      ++power_samples;
    }
    if (r.sm_clock_mhz >= 0) {
      clock_sum += r.sm_clock_mhz;
      ++clock_samples;
    }
    temperature_max = std::max(temperature_max, r.temperature_c);
    reasons |= r.throttle_reasons;
    last = r;
  }

  GpuFigures takeWindow() {
    GpuFigures f;
    f.not_sampled = not_sampled;
    if (!not_sampled.empty() || !last) {
      if (f.not_sampled.empty()) f.not_sampled = "no NVML sample yet";
      return f;
    }
    f.samples = samples;
    f.memory_used_bytes = last->memory_used_bytes;
    f.memory_total_bytes = last->memory_total_bytes;
    f.power_limit_w = last->power_limit_w;
    if (samples == 0) {
      f.utilization_pct = last->utilization_pct;
      f.power_w = last->power_w;
      f.temperature_c = last->temperature_c;
      f.sm_clock_mhz = last->sm_clock_mhz;
      f.throttle_reasons = throttleReasonsFromBits(last->throttle_reasons);
      return f;
    }
    f.utilization_pct = utilization_sum / static_cast<double>(samples);
    if (power_samples > 0) f.power_w = power_sum / static_cast<double>(power_samples);
    if (clock_samples > 0) f.sm_clock_mhz = clock_sum / static_cast<double>(clock_samples);
    f.temperature_c = temperature_max;
    f.throttle_reasons = throttleReasonsFromBits(reasons);
    resetWindow();
    return f;
  }

  void resetWindow() {
    samples = power_samples = clock_samples = 0;
    utilization_sum = power_sum = clock_sum = 0;
    temperature_max = -1;
    reasons = 0;
  }
};

GpuSampler::GpuSampler(const std::vector<GpuToSample>& devices, std::chrono::milliseconds interval)
    : m_interval(interval) {
  std::string why;
  m_nvml = NvmlLibrary::open(why);
  if (!m_nvml) m_no_nvml = "no NVML: " + why;
  bool any = false;
  for (const GpuToSample& d : devices) {
    auto device = std::make_unique<Device>();
    if (!m_nvml) {
      device->not_sampled = m_no_nvml;
    } else if (d.pci_bus_id.empty()) {
      device->not_sampled = "no NVML device for cuda:" + std::to_string(d.cuda_ordinal) +
                            ": CUDA gave no PCI bus id to find it by";
    } else if ((device->handle = m_nvml->deviceByPciBusId(d.pci_bus_id, why))) {
      any = true;
    } else {
      device->not_sampled = why;
    }
    m_devices[d.cuda_ordinal] = std::move(device);
    m_bus_ids[d.cuda_ordinal] = d.pci_bus_id;
  }
  if (!any) return;
  sampleAll();  // the first window has figures however short it is
  m_thread = std::thread([this, interval] { loop(interval); });
}

GpuSampler::~GpuSampler() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) m_thread.join();
  m_devices.clear();
  m_nvml.reset();  // NVML shut down after the last read
}

void GpuSampler::sampleAll() {
  // NVML is read outside the lock, so that a take() never waits for the driver.
  std::vector<std::pair<Device*, NvmlReading>> readings;
  for (auto& [ordinal, device] : m_devices) {
    if (device->handle) readings.emplace_back(device.get(), m_nvml->read(*device->handle));
  }
  std::lock_guard<std::mutex> lock(m_mutex);
  for (auto& [device, reading] : readings) device->add(reading);
  ++m_rounds;
}

void GpuSampler::loop(std::chrono::milliseconds interval) {
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_wake.wait_for(lock, interval, [this] { return m_stop; })) {
    lock.unlock();
    sampleAll();
    lock.lock();
  }
}

GpuFigures GpuSampler::take(int cuda_ordinal) {
  std::lock_guard<std::mutex> lock(m_mutex);
  const auto it = m_devices.find(cuda_ordinal);
  if (it == m_devices.end()) {
    GpuFigures f;
    f.not_sampled = "cuda:" + std::to_string(cuda_ordinal) + " is not among the sampled GPUs";
    return f;
  }
  return it->second->takeWindow();
}

std::string GpuSampler::describe() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  std::string sampled, not_sampled;
  for (const auto& [ordinal, device] : m_devices) {
    const std::string name = "cuda:" + std::to_string(ordinal);
    if (device->handle) {
      sampled += (sampled.empty() ? "" : ", ") + name + " (" + m_bus_ids.at(ordinal) + ")";
    } else {
      not_sampled += "; " + name + " not sampled: " + device->not_sampled;
    }
  }
  const auto ms = m_interval.count();
  const std::string every = ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
  return sampled.empty() ? "GPU figures: " + not_sampled.substr(2)
                         : "GPU figures from NVML every " + every + ": " + sampled + not_sampled;
}

int64_t GpuSampler::rounds() const {
  std::lock_guard<std::mutex> lock(m_mutex);
  return m_rounds;
}

}  // namespace wb
