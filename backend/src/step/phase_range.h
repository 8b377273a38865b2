#pragma once
// The step's phases (data, forward, backward, optimizer, allreduce) as record_function ranges named as
// PyTorch's profiler shows a training loop's ("## forward ##"), opened only while this thread records a
// profile (profiling/step_profiler.h switches them on): otherwise a PhaseRange is one thread-local read, and
// nothing reaches LibTorch's RecordFunction machinery.

#include <ATen/record_function.h>

#include <optional>
#include <string>

#include "workbench/profile_report.h"

namespace wb {

// Set by the step profiler on the training thread for the steps it records.
inline thread_local bool t_phase_ranges = false;

class PhaseRange {
 public:
  explicit PhaseRange(StepPhase phase) : PhaseRange(phase, std::string()) {}
  // The phase's name with `detail` after it: a pipeline stage's work on one micro-batch,
  // "## forward ## stage 1 micro-batch 3" (pipeline/pipeline_step.cpp), on the stage's thread.
  PhaseRange(StepPhase phase, const std::string& detail) {
    if (!t_phase_ranges) return;
    m_range.emplace(at::RecordScope::USER_SCOPE);
    if (m_range->isActive()) {
      m_name = detail.empty() ? phaseRangeName(phase) : phaseRangeName(phase) + " " + detail;
      m_range->before(m_name.c_str());
    }
  }
  PhaseRange(const PhaseRange&) = delete;
  PhaseRange& operator=(const PhaseRange&) = delete;

 private:
  std::string m_name;  // the range keeps the name's pointer until it ends
  std::optional<at::RecordFunction> m_range;
};

}  // namespace wb
