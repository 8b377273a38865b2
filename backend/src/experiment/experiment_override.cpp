// applyOverride: "train.epochs=5" style edits of an experiment document, as given by `--set` on the command
// line. The path is checked against the schema before anything is written, so a typo is reported with the
// closest valid key instead of silently adding a key the parser would then reject.

#include <cctype>
#include <string>
#include <vector>

#include "experiment/experiment_schema.h"
#include "experiment/issue_list.h"
#include "experiment/value_checks.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

using nlohmann::json;

struct PathStep {
  bool isIndex = false;
  std::string key;
  size_t index = 0;
};

std::string trim(const std::string& text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

// "optimizer.betas[0]" → key "optimizer", key "betas", index 0. False for anything that is not such a path.
bool parseKeyPath(const std::string& text, std::vector<PathStep>& steps) {
  size_t i = 0;
  while (i < text.size()) {
    if (!steps.empty()) {
      if (text[i] == '[') {
        const size_t close = text.find(']', i);
        if (close == std::string::npos || close == i + 1 || close - i > 10) return false;
        PathStep step;
        step.isIndex = true;
        for (size_t j = i + 1; j < close; ++j) {
          if (!std::isdigit(static_cast<unsigned char>(text[j]))) return false;
          step.index = step.index * 10 + static_cast<size_t>(text[j] - '0');
        }
        steps.push_back(step);
        i = close + 1;
        continue;
      }
      if (text[i] != '.') return false;
      ++i;
    }
    const size_t end = text.find_first_of(".[]", i);
    const std::string key = text.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (key.empty()) return false;
    PathStep step;
    step.key = key;
    steps.push_back(step);
    i = end == std::string::npos ? text.size() : end;
  }
  return !steps.empty();
}

class OverrideWriter {
 public:
  explicit OverrideWriter(json& doc) : m_node(&doc) {}

  // Moves to the place `step` names, creating what is missing on the way; false (with an issue) when the
  // schema has no such place.
  bool enter(const PathStep& step) { return step.isIndex ? enterIndex(step.index) : enterKey(step.key); }

  void assign(const std::string& valueText) {
    json value = json::parse(valueText, nullptr, /*allow_exceptions=*/false);
    if (value.is_discarded()) value = valueText;
    // A text key keeps the text as typed: `name=2024` or `data.path=007` must not become numbers.
    const bool textLeaf = !m_freeForm && m_key->holdsText && (m_inList || m_key->kind == KeyKind::String);
    if (textLeaf && !value.is_string()) value = valueText;
    *m_node = value;
  }

  IssueList& issues() { return m_issues; }

 private:
  bool enterKey(const std::string& name) {
    const std::string keyPath = joinPath(m_path, name);
    if (!m_freeForm) {
      if (m_inList || m_key->kind != KeyKind::Section) {
        m_issues.add(keyPath, m_path + " holds a value, not keys: it has no key \"" + name + "\"");
        return false;
      }
      const SchemaKey* child = m_key->child(name);
      if (child == nullptr) {
        m_issues.add(keyPath, unknownKeyMessage(name, *m_key, m_path));
        return false;
      }
      // `"augment": false` followed by `data.augment.crop_padding=4` keeps augmentation off.
      if (m_key->switchable && m_node->is_boolean()) *m_node = json{{"enabled", m_node->get<bool>()}};
      m_key = child;
      m_freeForm = child->kind == KeyKind::Layers;
    }
    if (m_node->is_null()) *m_node = json::object();
    if (!m_node->is_object()) {
      m_issues.add(keyPath, "cannot set " + keyPath + ": " + (m_path.empty() ? "the document" : m_path) +
                                " is " + describeValue(*m_node) + ", not an object");
      return false;
    }
    m_node = &(*m_node)[name];
    m_path = keyPath;
    return true;
  }

  bool enterIndex(size_t index) {
    const std::string itemPath = indexPath(m_path, index);
    if (!m_freeForm) {
      if (m_inList || m_key->kind != KeyKind::List) {
        m_issues.add(itemPath, m_path + " is not a list: [" + std::to_string(index) + "] cannot index it");
        return false;
      }
      // Start from the default list, so that `optimizer.betas[1]=0.99` alone changes one beta.
      if (m_node->is_null()) *m_node = m_key->write(Experiment{});
      if (m_node->is_string()) *m_node = json::array({*m_node});  // train.devices may be a single name
      m_inList = true;
    }
    if (m_node->is_null()) *m_node = json::array();
    if (!m_node->is_array()) {
      m_issues.add(itemPath, "cannot set " + itemPath + ": " + m_path + " is " + describeValue(*m_node) +
                                 ", not a list");
      return false;
    }
    if (index > m_node->size()) {
      const std::string size = std::to_string(m_node->size());
      const std::string replace =
          m_node->empty()
              ? std::string()
              : "an index from 0 to " + std::to_string(m_node->size() - 1) + " replaces an item, ";
      m_issues.add(itemPath, m_path + " has " + size + " items: " + replace + size + " adds one");
      return false;
    }
    if (index == m_node->size()) m_node->push_back(nullptr);
    m_node = &(*m_node)[index];
    m_path = itemPath;
    return true;
  }

  json* m_node;
  const SchemaKey* m_key = &experimentSchema();
  std::string m_path;
  bool m_freeForm = false;  // inside model.layers, whose contents the model module checks
  bool m_inList = false;    // at an item of a list key
  IssueList m_issues;
};

}  // namespace

std::vector<ValidationIssue> applyOverride(nlohmann::json& doc, const std::string& assignment) {
  IssueList issues;
  const size_t equals = assignment.find('=');
  if (equals == std::string::npos) {
    issues.add("",
               "override \"" + assignment + "\" has no '=': write it as key=value, such as train.epochs=5");
    return issues.take();
  }
  const std::string keyText = trim(assignment.substr(0, equals));
  std::vector<PathStep> steps;
  if (!parseKeyPath(keyText, steps)) {
    issues.add("", "override \"" + assignment + "\": \"" + keyText +
                       "\" is not a key path; write one such as train.epochs or optimizer.betas[0]");
    return issues.take();
  }

  // Edits go to a copy so that a rejected override leaves the document as it was.
  json edited = doc;
  OverrideWriter writer(edited);
  for (const PathStep& step : steps) {
    if (!writer.enter(step)) return writer.issues().take();
  }
  writer.assign(assignment.substr(equals + 1));
  doc = std::move(edited);
  return {};
}

}  // namespace wb
