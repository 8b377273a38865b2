#include "gpu_figures_json.h"  // wb_events sees backend/include only: beside this file

namespace wb {
namespace {

using nlohmann::json;

template <typename T>
void putKnown(json& j, const char* key, T value) {
  if (value >= 0) j[key] = value;
}

template <typename T>
T number(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return -1;
  const double value = it->get<double>();
  // A damaged line must not take the reader down: out of range reads as unknown.
  if (!(value >= 0 && value < 9.0e18)) return -1;
  return static_cast<T>(value);
}

}  // namespace

json gpuFiguresToJson(const GpuFigures& f) {
  if (!f.sampled()) return {{"not_sampled", f.not_sampled}};
  json j = {{"samples", f.samples}};
  putKnown(j, "utilization_pct", f.utilization_pct);
  putKnown(j, "memory_used_bytes", f.memory_used_bytes);
  putKnown(j, "memory_total_bytes", f.memory_total_bytes);
  putKnown(j, "power_w", f.power_w);
  putKnown(j, "power_limit_w", f.power_limit_w);
  putKnown(j, "temperature_c", f.temperature_c);
  putKnown(j, "sm_clock_mhz", f.sm_clock_mhz);
  if (!f.throttle_reasons.empty()) {
    json reasons = json::array();
    for (ThrottleReason r : f.throttle_reasons) reasons.push_back(wordString(r));
    j["throttle_reasons"] = std::move(reasons);
  }
  return j;
}

GpuFigures gpuFiguresFromJson(const json& step) {
  GpuFigures f;
  const auto it = step.find("gpu");
  if (it == step.end() || !it->is_object()) return f;
  const json& g = *it;
  if (const auto why = g.find("not_sampled"); why != g.end()) {
    f.not_sampled =
        why->is_string() && !why->get<std::string>().empty() ? why->get<std::string>() : "not sampled";
    return f;
  }
  f.not_sampled.clear();
  f.samples = std::max<int64_t>(0, number<int64_t>(g, "samples"));
  f.utilization_pct = number<double>(g, "utilization_pct");
  f.memory_used_bytes = number<int64_t>(g, "memory_used_bytes");
  f.memory_total_bytes = number<int64_t>(g, "memory_total_bytes");
  f.power_w = number<double>(g, "power_w");
  f.power_limit_w = number<double>(g, "power_limit_w");
  f.temperature_c = number<double>(g, "temperature_c");
  f.sm_clock_mhz = number<double>(g, "sm_clock_mhz");
  if (const auto reasons = g.find("throttle_reasons"); reasons != g.end() && reasons->is_array()) {
    for (const json& word : *reasons) {
      // A reason a newer version names is left out rather than misread.
      if (word.is_string()) {
        if (const auto r = fromWord<ThrottleReason>(word.get<std::string>()))
          f.throttle_reasons.push_back(*r);
      }
    }
  }
  return f;
}

}  // namespace wb
