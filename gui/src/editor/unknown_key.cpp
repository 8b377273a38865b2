#include "editor/unknown_key.h"

#include "editor/json_path.h"

namespace wb::gui {
namespace {

// The engine words it `unknown key "trian"; did you mean "train"?` (experiment_schema.cpp,
// unknownKeyMessage).
const std::string kUnknownPrefix = "unknown key \"";
const std::string kDidYouMean = "did you mean \"";

nlohmann::json* objectAt(nlohmann::json& doc, const std::string& parent) {
  if (parent.empty()) return doc.is_object() ? &doc : nullptr;
  const nlohmann::json* found = jsonAt(doc, parent);
  // jsonAt reads; the document is ours to change, so the const is only the helper's.
  auto* object = const_cast<nlohmann::json*>(found);
  return object && object->is_object() ? object : nullptr;
}

}  // namespace

std::optional<UnknownKey> unknownKeyOf(const ValidationIssue& issue) {
  if (issue.message.rfind(kUnknownPrefix, 0) != 0 || issue.path.empty()) return std::nullopt;
  UnknownKey out;
  out.path = issue.path;
  const size_t dot = issue.path.rfind('.');
  const size_t bracket = issue.path.rfind(']');
  if (dot != std::string::npos && (bracket == std::string::npos || dot > bracket)) {
    out.parent = issue.path.substr(0, dot);
    out.key = issue.path.substr(dot + 1);
  } else {
    out.key = issue.path;
  }
  const size_t at = issue.message.find(kDidYouMean);
  if (at != std::string::npos) {
    const size_t begin = at + kDidYouMean.size();
    const size_t end = issue.message.find('"', begin);
    if (end != std::string::npos) out.suggestion = issue.message.substr(begin, end - begin);
  }
  return out;
}

nlohmann::json renameUnknownKey(nlohmann::json doc, const UnknownKey& key, const std::string& to) {
  nlohmann::json* parent = objectAt(doc, key.parent);
  if (!parent || !parent->contains(key.key) || to.empty() || to == key.key) return doc;
  nlohmann::json value = (*parent)[key.key];
  parent->erase(key.key);
  auto existing = parent->find(to);
  if (existing != parent->end() && existing->is_object() && value.is_object()) {
    existing->merge_patch(value);
  } else {
    (*parent)[to] = std::move(value);
  }
  return doc;
}

nlohmann::json removeUnknownKey(nlohmann::json doc, const UnknownKey& key) {
  if (nlohmann::json* parent = objectAt(doc, key.parent)) parent->erase(key.key);
  return doc;
}

}  // namespace wb::gui
