#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

std::string formatIssues(const std::vector<ValidationIssue>& issues) {
  std::string text;
  for (const ValidationIssue& issue : issues) {
    text += "  ";
    if (!issue.path.empty()) text += issue.path + ": ";
    text += issue.message + "\n";
  }
  return text;
}

}  // namespace wb
