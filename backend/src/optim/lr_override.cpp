#include "optim/lr_override.h"

namespace wb {

double applyLrOverrides(const std::vector<LrOverride>& overrides, int64_t k, double scheduled) {
  // The list is kept sorted by from_step (stable), so the first one past k ends the walk.
  double factor = 1;
  bool constant = false;
  double constant_lr = 0;
  for (const LrOverride& o : overrides) {
    if (o.from_step > k) break;
    if (o.constant) {
      constant = true;
      constant_lr = o.value;
      factor = 1;
    } else {
      factor *= o.value;
    }
  }
  // x * 1.0 == x exactly: a run without changes gets the schedule's values bit for bit.
  return (constant ? constant_lr : scheduled) * factor;
}

nlohmann::json lrOverridesToJson(const std::vector<LrOverride>& overrides) {
  nlohmann::json out = nlohmann::json::array();
  for (const LrOverride& o : overrides) {
    out.push_back(
        {{"from_step", o.from_step}, {"kind", o.constant ? "constant" : "scale"}, {"value", o.value}});
  }
  return out;
}

std::vector<LrOverride> lrOverridesFromJson(const nlohmann::json& j) {
  std::vector<LrOverride> out;
  for (const nlohmann::json& entry : j) {
    LrOverride o;
    o.from_step = entry.at("from_step").get<int64_t>();
    o.constant = entry.at("kind").get<std::string>() == "constant";
    o.value = entry.at("value").get<double>();
    out.push_back(o);
  }
  return out;
}

}  // namespace wb
