#pragma once
// The Chrome Trace Event Format file (the "JSON Object Format" of Google's Trace Event Format document,
// which chrome://tracing and ui.perfetto.dev open) made from the profiler's events, for a LibTorch built
// without libkineto, whose ProfilerResult::save() cannot write one. Laid out as Kineto lays out its own:
// operators as complete ("X") events in category "cpu_op", record_function ranges in "user_annotation",
// memory records as instant ("i") events named "[memory]", times in microseconds from the trace's start,
// input shapes under args "Input Dims".

#include <cstdint>
#include <string>
#include <vector>

#include "profiling/profile_events.h"

namespace wb {

struct TraceProcess {
  int64_t pid = 0;
  std::string name;  // the process_name metadata: "workbench rank 0 (cpu)"
};

std::string chromeTraceJson(const std::vector<ProfiledEvent>& events, const TraceProcess& process);

}  // namespace wb
