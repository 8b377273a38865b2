#include "optim/parameter_groups.h"

#include <sstream>

#include "util/name_patterns.h"
#include "workbench/errors.h"

namespace wb {

std::vector<size_t> assignParameterGroups(const std::vector<ParamGroupConfig>& groups,
                                          const std::vector<std::string>& names,
                                          const std::map<std::string, std::string>& external_names) {
  const std::vector<ParameterName> named = parameterNames(names, external_names);
  std::vector<size_t> assigned(names.size(), 0);
  for (size_t g = 0; g < groups.size(); ++g) {
    for (size_t k = 0; k < groups[g].params.size(); ++k) {
      const std::string& pattern = groups[g].params[k];
      const std::string path =
          "optimizer.param_groups[" + std::to_string(g) + "].params[" + std::to_string(k) + "]";
      const std::vector<size_t> picked = patternPicks(pattern, named);
      for (size_t i : picked) {
        if (assigned[i] != 0 && assigned[i] != g + 1) {
          throw UserError(path + ": \"" + named[i].external + "\" is picked by optimizer.param_groups[" +
                              std::to_string(assigned[i] - 1) + "] and optimizer.param_groups[" +
                              std::to_string(g) + "]",
                          "a parameter belongs to one group: narrow one of the two patterns");
        }
        assigned[i] = g + 1;
      }
      if (picked.empty()) {
        throw UserError(noMatchMessage(path, pattern, named),
                        "write the pattern against the model's parameter names (the Model tab lists them)");
      }
    }
  }
  return assigned;
}

double groupLr(const OptimizerConfig& config, size_t group) {
  if (group == 0) return config.lr;
  const ParamGroupConfig& g = config.param_groups.at(group - 1);
  return g.lr > 0 ? g.lr : g.lr_scale * config.lr;
}

double groupWeightDecay(const OptimizerConfig& config, size_t group) {
  if (group == 0) return config.weight_decay;
  const ParamGroupConfig& g = config.param_groups.at(group - 1);
  return g.weight_decay >= 0 ? g.weight_decay : config.weight_decay;
}

std::string describeParameterGroups(const OptimizerConfig& config, const std::vector<std::string>& names,
                                    const std::map<std::string, std::string>& external_names,
                                    const std::vector<bool>& trainable) {
  const std::vector<size_t> assigned = assignParameterGroups(config.param_groups, names, external_names);
  std::ostringstream out;
  out << "Parameter groups:";
  for (size_t g = 0; g <= config.param_groups.size(); ++g) {
    int64_t tensors = 0;
    for (size_t i = 0; i < assigned.size(); ++i) tensors += assigned[i] == g && trainable.at(i) ? 1 : 0;
    std::string label = "default";
    if (g > 0) {
      label.clear();
      for (const std::string& pattern : config.param_groups[g - 1].params)
        label += (label.empty() ? "" : ", ") + pattern;
    }
    out << (g ? "; " : " ") << label << " (" << tensors << " tensors, lr " << groupLr(config, g)
        << ", weight decay " << groupWeightDecay(config, g) << ")";
  }
  return out.str();
}

}  // namespace wb
