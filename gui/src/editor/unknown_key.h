#pragma once
// A key of an opened file that the experiment does not have ("trian": {...}): recognized from the engine's
// own issue (its path and its "did you mean"), and the two ways to fix it in the window: rename it to the
// suggested key, or remove it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "workbench/experiment.h"

namespace wb::gui {

struct UnknownKey {
  std::string path;        // "trian", "train.epocs", "model.layers[2].size"
  std::string parent;      // the object holding it: "" (top level), "train", "model.layers[2]"
  std::string key;         // "trian"
  std::string suggestion;  // the engine's "did you mean" ("train"), or "" when nothing is close
};

// nullopt when the issue is not the engine's unknown-key issue.
std::optional<UnknownKey> unknownKeyOf(const ValidationIssue& issue);

// The document with the key renamed to `to`. When `to` already holds an object (the defaults the editor fills
// in), the unknown key's object is merged over it: what the file says wins.
nlohmann::json renameUnknownKey(nlohmann::json doc, const UnknownKey& key, const std::string& to);
nlohmann::json removeUnknownKey(nlohmann::json doc, const UnknownKey& key);

}  // namespace wb::gui
