#include "profiling/profile_trace.h"

#include <nlohmann/json.hpp>
#include <set>

namespace wb {
namespace {

using nlohmann::json;

double micros(int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

// "[[64, 3], []]" back into arrays for args "Input Dims" (Kineto writes the dimensions as JSON arrays).
json inputDims(const std::string& shapes) {
  const json parsed = json::parse(shapes, nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? json(shapes) : parsed;
}

bool isUserRange(const ProfiledEvent& e) {
  return e.name.rfind("## ", 0) == 0 || e.name.rfind("ProfilerStep#", 0) == 0;
}

json rangeEvent(const ProfiledEvent& e, int64_t pid) {
  json j = {{"ph", "X"},
            {"cat", isUserRange(e) ? "user_annotation" : "cpu_op"},
            {"name", e.name},
            {"pid", pid},
            {"tid", e.thread},
            {"ts", micros(e.start_ns)},
            {"dur", micros(e.end_ns - e.start_ns)}};
  json args = json::object();
  if (!e.input_shapes.empty()) args["Input Dims"] = inputDims(e.input_shapes);
  if (e.correlation > 0) args["External id"] = e.correlation;
  j["args"] = std::move(args);
  return j;
}

json memoryEvent(const ProfiledEvent& e, int64_t pid) {
  return {{"ph", "i"},
          {"s", "t"},
          {"cat", "cpu_instant_event"},
          {"name", "[memory]"},
          {"pid", pid},
          {"tid", e.thread},
          {"ts", micros(e.start_ns)},
          {"args", {{"Bytes", e.bytes}, {"Device Type", e.cuda_memory ? 1 : 0}}}};
}

}  // namespace

std::string chromeTraceJson(const std::vector<ProfiledEvent>& events, const TraceProcess& process) {
  json trace_events = json::array();
  trace_events.push_back({{"ph", "M"},
                          {"name", "process_name"},
                          {"pid", process.pid},
                          {"tid", 0},
                          {"args", {{"name", process.name}}}});
  std::set<uint64_t> threads;
  for (const ProfiledEvent& e : events) {
    if (e.kind == ProfiledEvent::Kind::Memory) {
      trace_events.push_back(memoryEvent(e, process.pid));
    } else if (e.kind == ProfiledEvent::Kind::CpuRange) {
      trace_events.push_back(rangeEvent(e, process.pid));
    } else {
      continue;  // device activities come only with Kineto, which writes its own trace
    }
    threads.insert(e.thread);
  }
  for (uint64_t thread : threads) {
    trace_events.push_back({{"ph", "M"},
                            {"name", "thread_name"},
                            {"pid", process.pid},
                            {"tid", thread},
                            {"args", {{"name", "thread " + std::to_string(thread)}}}});
  }
  const json trace = {{"schemaVersion", 1},
                      {"displayTimeUnit", "ms"},
                      {"traceEvents", std::move(trace_events)},
                      {"otherData", {{"writer", "Torch Workbench (LibTorch without Kineto)"}}}};
  return trace.dump();
}

}  // namespace wb
