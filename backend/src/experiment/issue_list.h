#pragma once
// The issues found while reading an experiment, gathered so that all of them are reported at once.

#include <string>
#include <utility>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

class IssueList {
 public:
  void add(std::string path, std::string message) {
    m_issues.push_back(ValidationIssue{std::move(path), std::move(message)});
  }

  // Whether `path` or anything inside it ("train" covers "train.batch_size" and "train.devices[1]") already
  // has an issue: a check that combines several keys stays quiet when one of them is itself wrong, so the
  // user sees the cause and not its echoes.
  bool hasIssueAt(const std::string& path) const {
    if (path.empty()) return !m_issues.empty();
    for (const ValidationIssue& issue : m_issues) {
      if (issue.path.compare(0, path.size(), path) != 0) continue;
      if (issue.path.size() == path.size()) return true;
      const char next = issue.path[path.size()];
      if (next == '.' || next == '[') return true;
    }
    return false;
  }

  const std::vector<ValidationIssue>& issues() const { return m_issues; }
  std::vector<ValidationIssue> take() { return std::move(m_issues); }

 private:
  std::vector<ValidationIssue> m_issues;
};

}  // namespace wb
