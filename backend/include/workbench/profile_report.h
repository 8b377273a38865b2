#pragma once
// Profiling a few training steps with LibTorch's profiler (Run ▸ Profile Steps…, `workbench-cli profile`,
// `workbench-cli train --profile START:N`, `workbench-cli control RUN profile`): what is asked, and what
// comes back. The engine records the steps with Kineto where the build has it (CPU activities, CUDA ones when
// the run trains on CUDA), writes the Chrome/Perfetto trace into the run folder and reports the operator
// table as PyTorch's key_averages().table() groups it (by name and input shapes). Plain C++: the window and
// the CLI include this without Torch.
//
// Data parallel: rank 0 profiles its own thread's operators (and, on CUDA, every kernel the profiler sees on
// the devices); the other ranks train unprofiled. A report says which rank and how many ranks ran.

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workbench/word_set.h"

namespace wb {

// The parts of an optimizer step, as the trace's ranges name them ("## forward ##") and the report's phase
// bar shows them, in the order a step runs them.
enum class StepPhase { Data, Forward, Backward, Optimizer, Allreduce };
template <>
struct Words<StepPhase> {
  static constexpr std::array<Word<StepPhase>, 5> table{{{StepPhase::Data, "data"},
                                                         {StepPhase::Forward, "forward"},
                                                         {StepPhase::Backward, "backward"},
                                                         {StepPhase::Optimizer, "optimizer"},
                                                         {StepPhase::Allreduce, "allreduce"}}};
};
static_assert(isWholeWordTable<StepPhase>());

// Which profiler recorded. Both are LibTorch's profiler API (the one torch.profiler uses); Kineto: a build
// with libkineto, which records CUDA kernels through CUPTI and writes the trace itself (pip's LibTorch);
// LibTorch: a build without it (Debian's 1.13), CPU operators from the profiler's own event collection, the
// trace written by the workbench from those events.
enum class ProfilerKind { Kineto, LibTorch };
template <>
struct Words<ProfilerKind> {
  static constexpr std::array<Word<ProfilerKind>, 2> table{
      {{ProfilerKind::Kineto, "kineto"}, {ProfilerKind::LibTorch, "libtorch"}}};
};
static_assert(isWholeWordTable<ProfilerKind>());

// The operator table's orders (the CLI's --sort, the window's default column).
enum class ProfileSort { SelfCpu, CpuTotal, SelfCuda, CudaTotal, Calls, CpuMemory };
template <>
struct Words<ProfileSort> {
  static constexpr std::array<Word<ProfileSort>, 6> table{{{ProfileSort::SelfCpu, "self_cpu"},
                                                           {ProfileSort::CpuTotal, "cpu_total"},
                                                           {ProfileSort::SelfCuda, "self_cuda"},
                                                           {ProfileSort::CudaTotal, "cuda_total"},
                                                           {ProfileSort::Calls, "calls"},
                                                           {ProfileSort::CpuMemory, "cpu_memory"}}};
};
static_assert(isWholeWordTable<ProfileSort>());

// What to record. Taken at an optimizer-step boundary; one profile at a time per run.
struct ProfileRequest {
  // Steps done before the first profiled step (the first profiled step is number first_step + 1);
  // -1: from the next step. A step already past means the next step.
  int64_t first_step = -1;
  int64_t steps = 10;          // how many optimizer steps to record; 1 or more
  bool record_shapes = true;   // the operators' input shapes (the table then groups by name and shapes)
  bool profile_memory = true;  // bytes the operators allocate (CPU memory; CUDA memory on CUDA)
  std::string source;          // who asked, for the log: "the window", "workbench-cli control"
  // A command line's request (train --profile, workbench-cli profile): when the run cannot record it (its
  // first step is beyond the run's steps), the run fails with that reason (ErrorKind::BadInput) instead of
  // training on without a profile.
  bool required = false;
};

// Empty when the request can be taken; otherwise what is wrong with it, naming the value.
std::string checkProfileRequest(const ProfileRequest& request);

// One row of the operator table: every call of an operator with the same name (and, with record_shapes, the
// same input shapes) over the profiled steps, summed. Times in milliseconds, as PyTorch's table totals them.
struct ProfileOperatorRow {
  std::string name;          // "aten::convolution"
  std::string input_shapes;  // as PyTorch prints them: "[[64, 3, 32, 32], [16, 3, 3, 3], []]"; "" without
  int64_t calls = 0;
  double self_cpu_ms = 0;    // in the operator itself, its children left out
  double cpu_total_ms = 0;   // children included
  double self_cuda_ms = -1;  // kernels the operator launched itself; -1 when CUDA was not profiled
  double cuda_total_ms = -1;
  int64_t cpu_memory_bytes = 0;  // allocated minus freed, children included (0 without profile_memory)
  int64_t self_cpu_memory_bytes = 0;
  int64_t cuda_memory_bytes = -1;  // -1 when CUDA was not profiled
  int64_t self_cuda_memory_bytes = -1;
};

// A phase's mean time per profiled step, from its range in the trace.
struct PhaseTime {
  StepPhase phase = StepPhase::Forward;
  double ms = 0;
};

struct ProfileReport {
  std::string device;  // the profiled rank's device: "cpu", "cuda:0"
  int64_t rank = 0;
  int64_t world_size = 1;  // ranks training; only rank 0 profiles
  ProfilerKind profiler = ProfilerKind::Kineto;
  bool cuda_activities = false;  // CUDA kernels and memory copies recorded
  bool record_shapes = false;
  bool profile_memory = false;
  int64_t first_step = 0;  // steps done before the first profiled step
  int64_t steps = 0;       // steps profiled (fewer than asked when the run ended first)
  double step_ms = 0;      // mean wall time of a profiled step, the data wait included
  // Mean per step, in StepPhase order; a phase this run's step does not have (allreduce with one device)
  // is absent.
  std::vector<PhaseTime> phases;
  std::vector<ProfileOperatorRow> operators;  // sorted by self CPU time, the largest first
  // Files in the run folder (absolute paths): the Chrome/Perfetto trace (open it in ui.perfetto.dev or
  // chrome://tracing), the table as text (like PyTorch's) and this report as JSON.
  std::string trace_path;
  std::string table_path;
  std::string report_path;
  std::string source;  // who asked
};

// The ranks a profile's phase ranges get in the trace: "## forward ##", as PyTorch's profiler shows the
// ranges a training loop marks with record_function.
std::string phaseRangeName(StepPhase phase);

// The report as the run folder's RUN/profile/steps-<a>-<b>.json holds it, and back. nullopt and `problem`
// set when the object is not a report.
nlohmann::json profileReportToJson(const ProfileReport& report);
std::optional<ProfileReport> profileReportFromJson(const nlohmann::json& object, std::string& problem);
// Reads a report file. Throws wb::UserError naming the file when it is missing or not a report.
ProfileReport readProfileReport(const std::string& path);
// The reports in a run folder's profile/ directory, oldest first (paths of the .json files).
std::vector<std::string> profileReportPaths(const std::string& run_dir);

// The operator table as text, in the layout of PyTorch's key_averages().table(): `rows` rows (0: all) by
// `sort`, the CUDA and memory columns only when recorded, the totals under it; then the step's phases.
std::string formatProfileTable(const ProfileReport& report, ProfileSort sort, int64_t rows);
// The rows in that order (ties by name), e.g. for a sortable view that starts in the CLI's order. A CUDA
// order on a profile without CUDA activities sorts by self CPU time.
std::vector<ProfileOperatorRow> sortedOperators(const ProfileReport& report, ProfileSort sort);

}  // namespace wb
