#pragma once
// Small helpers shared by the experiment-file tests.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workbench/experiment.h"

// Expects `text` to contain `part` (GoogleTest only: the tests do not link GoogleMock).
#define EXPECT_CONTAINS(text, part) EXPECT_PRED_FORMAT2(::wb::test::containsText, text, part)

namespace wb::test {

// The issue reported at exactly `path`, or null.
inline const ValidationIssue* issueAt(const std::vector<ValidationIssue>& issues, const std::string& path) {
  for (const ValidationIssue& issue : issues) {
    if (issue.path == path) return &issue;
  }
  return nullptr;
}

// The message at `path`, or a failure listing what was reported instead.
inline std::string messageAt(const std::vector<ValidationIssue>& issues, const std::string& path) {
  const ValidationIssue* issue = issueAt(issues, path);
  if (issue == nullptr) {
    ADD_FAILURE() << "no issue at \"" << path << "\"; reported:\n" << formatIssues(issues);
    return {};
  }
  return issue->message;
}

// For EXPECT_PRED_FORMAT2: whether `text` contains `part`, showing both when it does not.
inline ::testing::AssertionResult containsText(const char* textExpression, const char* partExpression,
                                               const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << textExpression << " does not contain " << partExpression
                                       << "\n  text: " << text << "\n  part: " << part;
}

inline ParseResult parseText(const std::string& json) {
  return parseExperiment(nlohmann::json::parse(json));
}

}  // namespace wb::test
