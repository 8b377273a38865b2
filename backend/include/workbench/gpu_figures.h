#pragma once
// What a GPU was doing over a metrics window, as NVML (the driver's management library) reports it: sampled
// every second on a thread of the engine's own, never by synchronizing the device. Plain values: the CLI and
// the window read them from StepMetrics without Torch.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "workbench/word_set.h"

namespace wb {

// Why a GPU's clocks were held below their maximum (NVML's clocks event / throttle reasons), as words.
enum class ThrottleReason {
  Idle,           // nothing to run: the driver lowers the clocks
  AppClocks,      // application clocks set below the maximum
  SwPowerCap,     // the power limit
  HwSlowdown,     // the hardware's own slowdown (temperature or power brake)
  SyncBoost,      // held with other GPUs of a sync boost group
  SwThermal,      // the driver's thermal limit
  HwThermal,      // the hardware's thermal limit
  HwPowerBrake,   // an external power brake
  DisplayClocks,  // display clock settings
};
template <>
struct Words<ThrottleReason> {
  static constexpr std::array<Word<ThrottleReason>, 9> table{
      {{ThrottleReason::Idle, "idle"},
       {ThrottleReason::AppClocks, "app_clocks"},
       {ThrottleReason::SwPowerCap, "power_cap"},
       {ThrottleReason::HwSlowdown, "hw_slowdown"},
       {ThrottleReason::SyncBoost, "sync_boost"},
       {ThrottleReason::SwThermal, "sw_thermal"},
       {ThrottleReason::HwThermal, "hw_thermal"},
       {ThrottleReason::HwPowerBrake, "power_brake"},
       {ThrottleReason::DisplayClocks, "display_clocks"}}};
};
static_assert(isWholeWordTable<ThrottleReason>());

// One GPU over one metrics window. A figure the GPU does not report (power on some boards) stays -1 while
// the others are sampled; when nothing could be sampled, `not_sampled` says why and every figure is -1 —
// never a zero that reads like an idle GPU.
struct GpuFigures {
  std::string not_sampled = "not sampled";  // "" when sampled; else why: "CPU run", "no NVML: <reason>"
  int64_t samples = 0;                      // NVML samples in the window
  double utilization_pct = -1;              // share of time a kernel ran (NVML's "gpu" utilization), mean
  int64_t memory_used_bytes = -1;           // the whole device's, every process's, at the last sample
  int64_t memory_total_bytes = -1;
  double power_w = -1;  // mean draw
  double power_limit_w = -1;
  double temperature_c = -1;                     // highest in the window
  double sm_clock_mhz = -1;                      // mean
  std::vector<ThrottleReason> throttle_reasons;  // every reason seen in the window, in the table's order

  bool sampled() const { return not_sampled.empty(); }
};

// The figures as a progress line shows them: "gpu 87% 312W" (utilization, mean power); "gpu 87%" where the
// board reports no power; "" when not sampled — a line shows nothing rather than a made-up figure.
std::string gpuBrief(const GpuFigures& figures);
// Several GPUs (a data-parallel or pipeline run's devices), in order: "gpu 87% 312W | 85% 305W"; one not
// sampled shows "--" in its place; "" when none was sampled.
std::string gpuBrief(const std::vector<GpuFigures>& gpus);

}  // namespace wb
