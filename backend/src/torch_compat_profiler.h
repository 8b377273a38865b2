#pragma once
// LibTorch's profiler (torch/csrc/autograd/profiler_kineto.h) as 1.13 and 2.x spell it. The calls are the
// same in both (prepareProfiler / enableProfiler with a ProfilerConfig and the activities, disableProfiler
// giving a ProfilerResult whose save() writes the Chrome trace); what differs is read here:
// - event times: 1.13's KinetoEvent has startUs()/durationUs(), 2.x startNs()/durationNs() (and
//   ProfilerResult::trace_start_us() became trace_start_ns());
// - deviceIndex(): uint8_t in 1.13, int in 2.x;
// - a LibTorch built without libkineto (Debian's 1.13) records CPU operators through the same API (the
//   profiler's own event collection, as torch.profiler does there) but its save() throws "requires Kineto":
//   the caller then writes the trace itself (profiling/profile_trace.h).
// Kept out of torch_compat.h: profiler_kineto.h pulls in the profiler's headers, which only the profiling
// translation units need.

#include <torch/csrc/autograd/profiler_kineto.h>

#include <cstdint>

namespace wb::compat {

namespace torch_profiler = torch::autograd::profiler;

template <typename Event>
int64_t profilerEventStartNs(const Event& e) {
  if constexpr (requires { e.startNs(); }) {
    return static_cast<int64_t>(e.startNs());
  } else {
    return static_cast<int64_t>(e.startUs()) * 1000;
  }
}

template <typename Event>
int64_t profilerEventDurationNs(const Event& e) {
  if constexpr (requires { e.durationNs(); }) {
    return static_cast<int64_t>(e.durationNs());
  } else {
    return static_cast<int64_t>(e.durationUs()) * 1000;
  }
}

template <typename Result>
int64_t profilerTraceStartNs(const Result& r) {
  if constexpr (requires { r.trace_start_ns(); }) {
    return static_cast<int64_t>(r.trace_start_ns());
  } else {
    return static_cast<int64_t>(r.trace_start_us()) * 1000;
  }
}

}  // namespace wb::compat
