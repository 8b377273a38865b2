#pragma once
// When the GPU is under half busy over a metrics window, the likely cause in words, from figures the engine
// already has: the share of the step spent waiting for data, how often the metrics are read back (each
// read waits for the GPU), the batch size, whether the step is replayed as a CUDA graph. Said once, and
// again only when the likely cause changes: a log that repeats itself every window is a log nobody reads.

#include <cstdint>
#include <optional>
#include <string>

#include "workbench/events.h"

namespace wb {

enum class LowUtilizationCause { DataWait, HostSyncs, SmallBatch, HostBound };

// What the run was set up with (the experiment's train.* and data.* keys).
struct AdvisorSettings {
  int64_t batch_size = 128;  // per device
  int64_t log_every_steps = 20;
  int64_t workers = 2;
  bool cuda_graphs = false;  // the step is replayed from a CUDA graph
};

class UtilizationAdvisor {
 public:
  static constexpr double kBusyPercent = 50;  // under this the GPU is called under-used
  static constexpr double kDataWaitShare =
      0.25;  // from this share of a step waiting for data, data is the cause
  static constexpr int64_t kSmallBatch = 32;
  static constexpr int64_t kSyncEverySteps = 2;  // metrics read back this often or more: host syncs

  explicit UtilizationAdvisor(AdvisorSettings settings) : m_settings(settings) {}

  // The cause for a window's figures, none when the GPU was at least half busy or not sampled.
  std::optional<LowUtilizationCause> cause(const StepMetrics& m) const;
  // The log line for this window: empty unless the GPU was under-used and the cause is new.
  std::string advise(const StepMetrics& m);

 private:
  std::string explain(LowUtilizationCause cause, const StepMetrics& m) const;

  AdvisorSettings m_settings;
  std::optional<LowUtilizationCause> m_said;
};

}  // namespace wb
