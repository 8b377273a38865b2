#include "system/utilization_advisor.h"

#include <cmath>
#include <sstream>

namespace wb {

std::optional<LowUtilizationCause> UtilizationAdvisor::cause(const StepMetrics& m) const {
  if (!m.gpu.sampled() || m.gpu.utilization_pct < 0 || m.gpu.utilization_pct >= kBusyPercent)
    return std::nullopt;
  // In the order a person would fix them: a starved GPU first (nothing else matters while it waits), then
  // the waits the run asks for itself, then work too small to fill the GPU.
  if (m.data_wait_fraction >= kDataWaitShare) return LowUtilizationCause::DataWait;
  if (m_settings.log_every_steps <= kSyncEverySteps) return LowUtilizationCause::HostSyncs;
  if (m_settings.batch_size <= kSmallBatch) return LowUtilizationCause::SmallBatch;
  return LowUtilizationCause::HostBound;
}

std::string UtilizationAdvisor::advise(const StepMetrics& m) {
  const std::optional<LowUtilizationCause> now = cause(m);
  if (!now || now == m_said) return {};
  m_said = now;
  return explain(*now, m);
}

std::string UtilizationAdvisor::explain(LowUtilizationCause cause, const StepMetrics& m) const {
  std::ostringstream out;
  out << "The GPU was busy " << std::lround(m.gpu.utilization_pct) << "% of the time up to step " << m.step
      << ": likely ";
  switch (cause) {
    case LowUtilizationCause::DataWait:
      out << "waiting for data — " << std::lround(m.data_wait_fraction * 100)
          << "% of each step waits for the next batch (" << m.data_ms
          << " ms). More loader threads (data.workers, now " << m_settings.workers
          << "), data.augment_on: device, or train.data_on_device for a split that fits feed it faster.";
      break;
    case LowUtilizationCause::HostSyncs:
      out << "host syncs — the metrics are read back every " << m_settings.log_every_steps
          << (m_settings.log_every_steps == 1 ? " step" : " steps")
          << " (train.log_every_steps), and each read waits for the GPU to finish; 20 or more lets it run "
             "ahead.";
      break;
    case LowUtilizationCause::SmallBatch:
      out << "a small batch — " << m_settings.batch_size
          << " samples per step leave the GPU's kernels too short to fill it; a larger train.batch_size "
             "(with "
             "the learning rate scaled), or train.cuda_graphs to launch the step at once.";
      break;
    case LowUtilizationCause::HostBound:
      out << "the host — the CPU launches the step's work (" << m.compute_ms + m.optimizer_ms
          << " ms per step) slower than the GPU runs it: "
          << (m_settings.cuda_graphs
                  ? "the step is already a CUDA graph, so a larger train.batch_size or model"
                  : "train.cuda_graphs replays the whole step in one launch; a larger "
                    "train.batch_size gives the GPU more per launch")
          << ".";
      break;
  }
  return out.str();
}

}  // namespace wb
