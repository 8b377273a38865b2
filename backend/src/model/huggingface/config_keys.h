#pragma once
// Reading a Hugging Face config.json's keys, shared by the architectures' configs: sizes that must be at
// least 1, and the classifier's labels (id2label, else num_labels as LABEL_0, LABEL_1, ...).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace wb::hf {

// UserError naming `file` and `key` when the value is below 1.
int64_t positiveSize(const nlohmann::json& config, const char* key, int64_t fallback,
                     const std::string& file);

std::vector<std::string> labelsOf(const nlohmann::json& config);

}  // namespace wb::hf
