#include "model/model_head.h"

namespace wb {

std::string owningModuleName(const std::string& parameterName) {
  const auto dot = parameterName.rfind('.');
  return dot == std::string::npos ? std::string() : parameterName.substr(0, dot);
}

std::vector<std::string> headParameterNames(Model& model) {
  const auto parameters = model.namedParameters();
  if (parameters.empty()) return {};
  const std::string head = owningModuleName(parameters.back().first);
  std::vector<std::string> names;
  for (const auto& [name, tensor] : parameters) {
    if (owningModuleName(name) == head) names.push_back(name);
  }
  return names;
}

}  // namespace wb
