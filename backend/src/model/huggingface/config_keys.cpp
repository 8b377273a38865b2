#include "model/huggingface/config_keys.h"

#include "workbench/errors.h"

namespace wb::hf {

int64_t positiveSize(const nlohmann::json& config, const char* key, int64_t fallback,
                     const std::string& file) {
  const nlohmann::json& value = config.contains(key) ? config[key] : nlohmann::json(fallback);
  if (!value.is_number_integer() || value.get<int64_t>() < 1) {
    throw UserError(file + ": " + key + " is " + value.dump() + ", not a size");
  }
  return value.get<int64_t>();
}

std::vector<std::string> labelsOf(const nlohmann::json& config) {
  std::vector<std::string> labels;
  if (config.contains("id2label") && config["id2label"].is_object()) {
    labels.resize(config["id2label"].size());
    for (const auto& [id, label] : config["id2label"].items()) {
      const size_t index = std::stoul(id);
      if (index < labels.size() && label.is_string()) labels[index] = label.get<std::string>();
    }
  }
  if (labels.empty()) {
    labels.resize(static_cast<size_t>(config.value("num_labels", 2)));
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = "LABEL_" + std::to_string(i);
  }
  return labels;
}

}  // namespace wb::hf
