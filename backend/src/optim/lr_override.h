#pragma once
// Learning-rate changes made to a live run, laid over its schedule: from a step on, a factor on what the
// schedule gives (factors compound) or a constant that replaces it. Part of the schedule's state, so a
// checkpoint keeps them and a resumed run computes the same learning rate for every step.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace wb {

struct LrOverride {
  int64_t from_step = 0;  // applies to lrAt(k) for k >= from_step
  bool constant = false;  // false: a factor on the schedule
  double value = 1;
};

// The learning rate for step k given the schedule's own value there: the overrides with from_step <= k, in
// step order (ties in the order they were made).
double applyLrOverrides(const std::vector<LrOverride>& overrides, int64_t k, double scheduled);

nlohmann::json lrOverridesToJson(const std::vector<LrOverride>& overrides);
// Throws nlohmann::json::exception when the array is damaged.
std::vector<LrOverride> lrOverridesFromJson(const nlohmann::json& j);

}  // namespace wb
