#include "editor/json_path.h"

#include <cctype>
#include <cstdlib>

namespace wb::gui {
namespace {

struct Token {
  std::string key;  // object key, or empty for an index
  long index = -1;  // array index, or -1
};

std::vector<Token> tokenize(const std::string& path) {
  std::vector<Token> tokens;
  std::string key;
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.') {
      if (!key.empty()) tokens.push_back({key, -1});
      key.clear();
    } else if (c == '[') {
      if (!key.empty()) tokens.push_back({key, -1});
      key.clear();
      const size_t end = path.find(']', i);
      if (end == std::string::npos) break;
      tokens.push_back({"", std::strtol(path.substr(i + 1, end - i - 1).c_str(), nullptr, 10)});
      i = end;
    } else {
      key += c;
    }
  }
  if (!key.empty()) tokens.push_back({key, -1});
  return tokens;
}

}  // namespace

const nlohmann::json* jsonAt(const nlohmann::json& doc, const std::string& path) {
  const nlohmann::json* node = &doc;
  for (const Token& t : tokenize(path)) {
    if (t.index >= 0) {
      if (!node->is_array() || static_cast<size_t>(t.index) >= node->size()) return nullptr;
      node = &(*node)[static_cast<size_t>(t.index)];
    } else {
      if (!node->is_object()) return nullptr;
      auto it = node->find(t.key);
      if (it == node->end()) return nullptr;
      node = &*it;
    }
  }
  return node;
}

void setJsonAt(nlohmann::json& doc, const std::string& path, nlohmann::json value) {
  nlohmann::json* node = &doc;
  for (const Token& t : tokenize(path)) {
    if (t.index >= 0) {
      if (!node->is_array()) *node = nlohmann::json::array();
      while (node->size() <= static_cast<size_t>(t.index)) node->push_back(nullptr);
      node = &(*node)[static_cast<size_t>(t.index)];
    } else {
      if (!node->is_object()) *node = nlohmann::json::object();
      node = &(*node)[t.key];
    }
  }
  *node = std::move(value);
}

bool pathIsUnder(const std::string& path, const std::string& prefix) {
  if (prefix.empty()) return true;
  if (path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

}  // namespace wb::gui
