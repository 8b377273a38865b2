#include "experiment/value_checks.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

#include "workbench/did_you_mean.h"

namespace wb {
namespace {

// 2^63 as a double: the first value past the int64 range.
constexpr double kInt64Limit = 9223372036854775808.0;

// Text from the command line (an override) may be invalid UTF-8, on which nlohmann's dump() throws: a message
// about a bad value must never fail itself.
std::string asJsonText(const nlohmann::json& value) {
  return value.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

std::string formatNumber(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// A number typed in quotes is the commonest JSON slip after a trailing comma: say so.
std::string quotedNumberHint(const nlohmann::json& value) {
  if (!value.is_string()) return {};
  const nlohmann::json parsed = nlohmann::json::parse(value.get<std::string>(), nullptr, false);
  if (parsed.is_discarded() || !parsed.is_number()) return {};
  return " (write numbers without quotes)";
}

void reportExpected(const std::string& expected, const nlohmann::json& found, const std::string& path,
                    IssueList& issues, const std::string& hint = {}) {
  issues.add(path, "expected " + expected + ", got " + describeValue(found) + hint);
}

}  // namespace

bool holdsValidUtf8(const nlohmann::json& value) {
  try {
    (void)value.dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

std::string describeValue(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::string:
      return value.get<std::string>().empty() ? "an empty string" : "the string " + asJsonText(value);
    case nlohmann::json::value_t::array: {
      const std::string text = asJsonText(value);
      if (text.size() <= 40) return "the array " + text;
      return "an array of " + std::to_string(value.size()) + " items";
    }
    case nlohmann::json::value_t::object:
      return value.empty() ? "an empty object" : "an object";
    case nlohmann::json::value_t::discarded:
      return "nothing";
    default:
      return asJsonText(value);  // numbers, true, false, null as written
  }
}

std::string IntegerRule::expected() const {
  constexpr int64_t lowest = std::numeric_limits<int64_t>::min();
  constexpr int64_t highest = std::numeric_limits<int64_t>::max();
  if (min == lowest && max == highest) return "an integer";
  if (max == highest) return min == 1 ? "a positive integer" : "an integer ≥ " + std::to_string(min);
  if (min == lowest) return "an integer ≤ " + std::to_string(max);
  return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

IntegerRule atLeast(int64_t min) {
  IntegerRule rule;
  rule.min = min;
  return rule;
}

std::string NumberRule::expected() const {
  const bool boundedBelow = std::isfinite(low);
  const bool boundedAbove = std::isfinite(high);
  if (!boundedBelow && !boundedAbove) return "a number";
  if (!boundedAbove) return std::string("a number ") + (lowInclusive ? "≥ " : "> ") + formatNumber(low);
  if (!boundedBelow) return std::string("a number ") + (highInclusive ? "≤ " : "< ") + formatNumber(high);
  return std::string("a number in ") + (lowInclusive ? "[" : "(") + formatNumber(low) + ", " +
         formatNumber(high) + (highInclusive ? "]" : ")");
}

NumberRule positiveNumber() {
  NumberRule rule;
  rule.low = 0.0;
  rule.lowInclusive = false;
  return rule;
}

NumberRule nonNegativeNumber() {
  NumberRule rule;
  rule.low = 0.0;
  return rule;
}

NumberRule numberIn(double low, bool lowInclusive, double high, bool highInclusive) {
  return NumberRule{low, lowInclusive, high, highInclusive};
}

std::string StringRule::expected() const {
  if (choices.empty()) return allowEmpty ? "a string" : "a non-empty string";
  return "one of " + quotedList(choices, ", ");
}

StringRule oneOf(std::vector<std::string> choices) {
  StringRule rule;
  rule.choices = std::move(choices);
  rule.allowEmpty = false;
  return rule;
}

StringRule nonEmptyString() {
  StringRule rule;
  rule.allowEmpty = false;
  return rule;
}

std::string quotedList(const std::vector<std::string>& words, const std::string& lastSeparator) {
  std::string result;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) result += i + 1 == words.size() ? lastSeparator : ", ";
    result += asJsonText(nlohmann::json(words[i]));
  }
  return result;
}

std::optional<int64_t> readInteger(const nlohmann::json& value, const IntegerRule& rule,
                                   const std::string& path, IssueList& issues) {
  int64_t result = 0;
  if (value.is_number_unsigned()) {
    const uint64_t unsignedValue = value.get<uint64_t>();
    if (unsignedValue > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      reportExpected(rule.expected(), value, path, issues);
      return std::nullopt;
    }
    result = static_cast<int64_t>(unsignedValue);
  } else if (value.is_number_integer()) {
    result = value.get<int64_t>();
  } else if (value.is_number_float()) {
    const double number = value.get<double>();
    if (!std::isfinite(number) || std::floor(number) != number || number < -kInt64Limit ||
        number >= kInt64Limit) {
      reportExpected(rule.expected(), value, path, issues);
      return std::nullopt;
    }
    result = static_cast<int64_t>(number);
  } else {
    reportExpected(rule.expected(), value, path, issues, quotedNumberHint(value));
    return std::nullopt;
  }
  if (result < rule.min || result > rule.max) {
    reportExpected(rule.expected(), value, path, issues);
    return std::nullopt;
  }
  return result;
}

std::optional<uint64_t> readUnsigned(const nlohmann::json& value, const std::string& path,
                                     IssueList& issues) {
  const std::string expected = "an integer in [0, 2^64)";
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (value.is_number_integer()) {  // signed, so negative: nlohmann stores non-negative literals as unsigned
    const int64_t number = value.get<int64_t>();
    if (number >= 0) return static_cast<uint64_t>(number);
    reportExpected(expected, value, path, issues);
    return std::nullopt;
  }
  if (value.is_number_float()) {
    const double number = value.get<double>();
    if (std::isfinite(number) && std::floor(number) == number && number >= 0.0 &&
        number < 2.0 * kInt64Limit) {
      return static_cast<uint64_t>(number);
    }
    reportExpected(expected, value, path, issues);
    return std::nullopt;
  }
  reportExpected(expected, value, path, issues, quotedNumberHint(value));
  return std::nullopt;
}

std::optional<double> readNumber(const nlohmann::json& value, const NumberRule& rule, const std::string& path,
                                 IssueList& issues) {
  if (!value.is_number()) {
    reportExpected(rule.expected(), value, path, issues, quotedNumberHint(value));
    return std::nullopt;
  }
  const double number = value.get<double>();
  const bool aboveLow = rule.lowInclusive ? number >= rule.low : number > rule.low;
  const bool belowHigh = rule.highInclusive ? number <= rule.high : number < rule.high;
  if (!std::isfinite(number) || !aboveLow || !belowHigh) {
    reportExpected(rule.expected(), value, path, issues);
    return std::nullopt;
  }
  return number;
}

std::optional<bool> readBoolean(const nlohmann::json& value, const std::string& path, IssueList& issues) {
  if (value.is_boolean()) return value.get<bool>();
  std::string hint;
  if (value.is_string() && (value == "true" || value == "false"))
    hint = " (write true or false without quotes)";
  reportExpected("true or false", value, path, issues, hint);
  return std::nullopt;
}

std::optional<std::string> readString(const nlohmann::json& value, const StringRule& rule,
                                      const std::string& path, IssueList& issues) {
  if (!value.is_string()) {
    reportExpected(rule.expected(), value, path, issues);
    return std::nullopt;
  }
  const std::string text = value.get<std::string>();
  // The experiment is written back as JSON (the run folder's experiment.json), which must be valid UTF-8.
  if (!holdsValidUtf8(value)) {
    reportExpected("text in UTF-8", value, path, issues);
    return std::nullopt;
  }
  if (text.empty()) {
    if (rule.allowEmpty) return text;
    reportExpected(rule.expected(), value, path, issues);
    return std::nullopt;
  }
  if (rule.choices.empty() ||
      std::find(rule.choices.begin(), rule.choices.end(), text) != rule.choices.end()) {
    return text;
  }
  const std::string suggestion = didYouMean(text, rule.choices);
  reportExpected(rule.expected(), value, path, issues,
                 suggestion.empty() ? std::string() : "; did you mean \"" + suggestion + "\"?");
  return std::nullopt;
}

}  // namespace wb
