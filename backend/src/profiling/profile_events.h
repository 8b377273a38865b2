#pragma once
// What LibTorch's profiler recorded, as plain events (profiling/step_profiler.cpp copies them out of the
// ProfilerResult), and the operator table made from them the way PyTorch's key_averages() makes it
// (torch/autograd/profiler_util.py): ranges nested per thread, a row's self time its total minus its
// children's, memory allocated within the range, CUDA kernels added to the operator that launched them.
// Without Torch, so that the table's arithmetic is tested on events written by hand.

#include <cstdint>
#include <string>
#include <vector>

#include "workbench/profile_report.h"

namespace wb {

struct ProfiledEvent {
  enum class Kind {
    CpuRange,  // an operator, a record_function range ("## forward ##") or a runtime call (cudaLaunchKernel)
    Device,    // a kernel or copy on a CUDA device
    Memory,    // "[memory]": bytes allocated (> 0) or freed (< 0)
  };
  Kind kind = Kind::CpuRange;
  std::string name;
  int64_t start_ns = 0;  // from the trace's start
  int64_t end_ns = 0;
  uint64_t thread = 0;
  std::string input_shapes;        // "[[64, 3], []]"; empty when shapes were not recorded
  int64_t bytes = 0;               // Memory
  bool cuda_memory = false;        // Memory: on a CUDA device rather than the host
  int device_index = -1;           // Device
  int64_t correlation = 0;         // CpuRange: the id its kernels link to
  int64_t linked_correlation = 0;  // Device, runtime calls: the operator's correlation
  bool async = false;              // not nested in its thread's ranges (PyTorch leaves it out of the tree)
};

struct ProfileTable {
  std::vector<ProfileOperatorRow> rows;  // by self CPU time, the largest first
  std::vector<PhaseTime> phases;         // mean per step, exclusive of phases nested inside
  double step_ms = 0;                    // mean "ProfilerStep#N" range
  int64_t steps = 0;                     // "ProfilerStep#N" ranges seen
};

// The name each profiled step's range gets, as torch.profiler's schedule names it; the table shows them as
// one row, "ProfilerStep*".
std::string profilerStepName(int64_t step);

// `cuda`: CUDA activities were recorded (the CUDA columns are then 0 or more rather than -1).
ProfileTable tabulateProfile(std::vector<ProfiledEvent> events, bool cuda);

}  // namespace wb
