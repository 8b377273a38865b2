#include "model/layer_params.h"

#include <algorithm>
#include <cmath>

#include "model/layer_list.h"
#include "model/name_suggestions.h"

namespace wb {

nlohmann::json Size2::toJson() const {
  if (h == w) return h;
  return nlohmann::json::array({h, w});
}

LayerParams::LayerParams(const nlohmann::json& object, std::string path, std::string type,
                         std::vector<ValidationIssue>& issues)
    : m_object(object),
      m_path(std::move(path)),
      m_type(std::move(type)),
      m_issues(issues),
      m_knownKeys({"type", "name", "param_names"}),  // the keys every layer takes (layer_names.h)
      m_issuesAtStart(issues.size()) {}

std::string LayerParams::keyPath(const std::string& key) const {
  return m_path + "." + key;
}

void LayerParams::report(const std::string& key, const std::string& message) {
  m_issues.push_back({keyPath(key), message});
}

const nlohmann::json* LayerParams::find(const std::string& key) {
  m_knownKeys.push_back(key);
  const auto it = m_object.find(key);
  // null counts as absent so that a generated document may spell out "shortcut": null.
  if (it == m_object.end() || it->is_null()) return nullptr;
  return &*it;
}

int64_t LayerParams::integer(const std::string& key, std::optional<int64_t> fallback, int64_t minimum) {
  const nlohmann::json* value = find(key);
  const std::string wanted = "an integer >= " + std::to_string(minimum);
  if (!value) {
    if (fallback) return *fallback;
    report(key, m_type + " needs " + key + " (" + wanted + ")");
    return minimum;
  }
  if (!value->is_number_integer()) {
    report(key, "must be " + wanted + ", got " + value->dump());
    return fallback.value_or(minimum);
  }
  const int64_t number = value->get<int64_t>();
  if (number < minimum) {
    report(key, "must be " + wanted + ", got " + std::to_string(number));
    return fallback.value_or(minimum);
  }
  return number;
}

Size2 LayerParams::size2(const std::string& key, std::optional<Size2> fallback, int64_t minimum) {
  const nlohmann::json* value = find(key);
  const std::string wanted =
      "an integer >= " + std::to_string(minimum) + " or a pair [height, width] of such integers";
  const Size2 standIn =
      fallback.value_or(Size2{std::max<int64_t>(minimum, 1), std::max<int64_t>(minimum, 1)});
  if (!value) {
    if (fallback) return *fallback;
    report(key, m_type + " needs " + key + " (" + wanted + ")");
    return standIn;
  }
  const auto valid = [minimum](const nlohmann::json& v) {
    return v.is_number_integer() && v.get<int64_t>() >= minimum;
  };
  if (valid(*value)) return Size2{value->get<int64_t>(), value->get<int64_t>()};
  if (value->is_array() && value->size() == 2 && valid((*value)[0]) && valid((*value)[1])) {
    return Size2{(*value)[0].get<int64_t>(), (*value)[1].get<int64_t>()};
  }
  report(key, "must be " + wanted + ", got " + value->dump());
  return standIn;
}

double LayerParams::number(const std::string& key, double fallback, double minimum, double maximum) {
  const nlohmann::json* value = find(key);
  if (!value) return fallback;
  if (!value->is_number() || !std::isfinite(value->get<double>()) || value->get<double>() < minimum ||
      value->get<double>() > maximum) {
    report(key, "must be a number from " + nlohmann::json(minimum).dump() + " to " +
                    nlohmann::json(maximum).dump() + ", got " + value->dump());
    return fallback;
  }
  return value->get<double>();
}

bool LayerParams::flag(const std::string& key, bool fallback) {
  const nlohmann::json* value = find(key);
  if (!value) return fallback;
  if (!value->is_boolean()) {
    report(key, "must be true or false, got " + value->dump());
    return fallback;
  }
  return value->get<bool>();
}

std::string LayerParams::choice(const std::string& key, const std::string& fallback,
                                const std::vector<std::string>& options) {
  const nlohmann::json* value = find(key);
  if (!value) return fallback;
  if (!value->is_string() ||
      std::find(options.begin(), options.end(), value->get<std::string>()) == options.end()) {
    const std::string given = value->is_string() ? value->get<std::string>() : value->dump();
    report(key,
           "unknown " + key + " " + value->dump() + " for " + m_type + "." + suggestionText(given, options));
    return fallback;
  }
  return value->get<std::string>();
}

std::optional<std::vector<LayerPtr>> LayerParams::layerList(const std::string& key, bool required) {
  const nlohmann::json* value = find(key);
  if (!value) {
    if (required) report(key, m_type + " needs " + key + " (a list of layers)");
    return std::nullopt;
  }
  if (required && value->is_array() && value->empty()) {
    report(key, m_type + " needs at least one layer in " + key);
    return std::nullopt;
  }
  return parseLayerList(*value, keyPath(key), m_issues);
}

bool LayerParams::finish() {
  for (auto it = m_object.begin(); it != m_object.end(); ++it) {
    if (std::find(m_knownKeys.begin(), m_knownKeys.end(), it.key()) != m_knownKeys.end()) continue;
    // "type" and the names are not the type's parameters.
    std::vector<std::string> parameters(m_knownKeys.begin() + 3, m_knownKeys.end());
    if (parameters.empty()) {
      report(it.key(), m_type + " takes no parameters; remove \"" + it.key() + "\"");
    } else {
      report(it.key(),
             m_type + " has no parameter \"" + it.key() + "\"." + suggestionText(it.key(), parameters));
    }
  }
  return m_issues.size() == m_issuesAtStart;
}

}  // namespace wb
