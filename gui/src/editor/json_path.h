#pragma once
// Addresses a value in an experiment document by the engine's issue paths: "train.batch_size",
// "optimizer.betas[1]", "model.layers[3].out_features".

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace wb::gui {

// nullptr when the path does not exist in the document.
const nlohmann::json* jsonAt(const nlohmann::json& doc, const std::string& path);
// Creates objects and array items on the way; a non-object in the way (such as `"augment": true`) is
// replaced.
void setJsonAt(nlohmann::json& doc, const std::string& path, nlohmann::json value);
// True when `path` equals `prefix` or lies below it ("a.b" is under "a", "a[0]" is under "a", "ab" is not).
bool pathIsUnder(const std::string& path, const std::string& prefix);

}  // namespace wb::gui
