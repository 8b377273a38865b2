#pragma once
// Reading one JSON value of the experiment file: its type and its allowed range or values. Each reader
// returns the value when it is valid, and otherwise adds an issue saying what was expected and what was
// found.

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiment/issue_list.h"

namespace wb {

// Whether every string in `value` is valid UTF-8. Text from the command line may not be, and the experiment
// is written back as JSON (the run folder's experiment.json), which must be.
bool holdsValidUtf8(const nlohmann::json& value);

// A found value in words: `the string "abc"`, `3.5`, `true`, `an object`.
std::string describeValue(const nlohmann::json& value);

struct IntegerRule {
  int64_t min = std::numeric_limits<int64_t>::min();
  int64_t max = std::numeric_limits<int64_t>::max();

  std::string expected() const;  // "a positive integer", "an integer ≥ 0", "an integer in [1, 3]"
};

IntegerRule atLeast(int64_t min);

struct NumberRule {
  double low = -std::numeric_limits<double>::infinity();
  bool lowInclusive = true;
  double high = std::numeric_limits<double>::infinity();
  bool highInclusive = true;

  std::string expected() const;  // "a number > 0", "a number in [0, 1)"
};

NumberRule positiveNumber();     // > 0
NumberRule nonNegativeNumber();  // ≥ 0
NumberRule numberIn(double low, bool lowInclusive, double high, bool highInclusive);

struct StringRule {
  std::vector<std::string> choices;  // empty: any string
  bool allowEmpty = true;

  std::string expected() const;  // "a string", "one of \"sgd\", \"adam\""
};

StringRule oneOf(std::vector<std::string> choices);
StringRule nonEmptyString();

// "\"a\", \"b\" or \"c\"": allowed values listed in a message.
std::string quotedList(const std::vector<std::string>& words, const std::string& lastSeparator = " or ");

// Integers written as 3.0 are accepted; 3.5 is not.
std::optional<int64_t> readInteger(const nlohmann::json& value, const IntegerRule& rule,
                                   const std::string& path, IssueList& issues);
// The full unsigned 64-bit range, for seeds.
std::optional<uint64_t> readUnsigned(const nlohmann::json& value, const std::string& path, IssueList& issues);
std::optional<double> readNumber(const nlohmann::json& value, const NumberRule& rule, const std::string& path,
                                 IssueList& issues);
std::optional<bool> readBoolean(const nlohmann::json& value, const std::string& path, IssueList& issues);
// An unknown choice is reported with the closest allowed one ("Adam" → did you mean "adam").
std::optional<std::string> readString(const nlohmann::json& value, const StringRule& rule,
                                      const std::string& path, IssueList& issues);

}  // namespace wb
