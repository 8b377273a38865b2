#pragma once
// NVML figures of the GPUs a process trains on, sampled on a thread of the sampler's own (every second for a
// run): a training step never waits for it and nothing here synchronizes the device. Each metrics window
// takes its device's figures since the window before (take()), so the step metrics carry the window's mean
// utilization and power beside its throughput.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "system/nvml_library.h"
#include "workbench/gpu_figures.h"

namespace wb {

// A CUDA device and how NVML finds it. CUDA numbers devices after CUDA_VISIBLE_DEVICES and
// CUDA_DEVICE_ORDER (fastest first by default), NVML in PCI order over every GPU: only the PCI bus id names
// the same GPU in both. Without one (empty) the device is not sampled, with that reason, rather than
// guessed.
struct GpuToSample {
  int cuda_ordinal = 0;
  std::string pci_bus_id;  // as cudaDeviceGetPCIBusId writes it: "0000:3b:00.0"
};

class GpuSampler {
 public:
  // Opens NVML and samples `devices` every `interval` until destroyed. Without NVML (or without a device in
  // it) the figures of take() say why, and no thread runs.
  GpuSampler(const std::vector<GpuToSample>& devices, std::chrono::milliseconds interval);
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // The figures of cuda:`cuda_ordinal` since the previous take() of that device; any thread. A window
  // shorter than the interval gets the last sample again (samples 0).
  GpuFigures take(int cuda_ordinal);
  // For the run's log, once: "GPU figures from NVML every 1 s: cuda:0 (0000:3b:00.0)", or why a device is
  // not sampled ("GPU figures: cuda:0 not sampled: no NVML: cannot load libnvidia-ml.so.1: ...").
  std::string describe() const;
  // Sampling rounds done so far (every device read once per round).
  int64_t rounds() const;

 private:
  struct Device;
  void sampleAll();
  void loop(std::chrono::milliseconds interval);

  std::unique_ptr<NvmlLibrary> m_nvml;
  std::string m_no_nvml;  // why NVML could not be opened
  std::chrono::milliseconds m_interval;
  std::map<int, std::string> m_bus_ids;
  std::map<int, std::unique_ptr<Device>> m_devices;
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  int64_t m_rounds = 0;
  std::thread m_thread;
};

}  // namespace wb
