#include "util/name_patterns.h"

#include <set>

#include "workbench/did_you_mean.h"

namespace wb {

bool globMatches(const std::string& pattern, const std::string& name) {
  // The iterative matcher with one backtrack point (the last '*'): linear in practice, no recursion.
  size_t p = 0, n = 0, star = std::string::npos, resume = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = n;
    } else if (star != std::string::npos) {
      p = star + 1;
      n = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<ParameterName> parameterNames(const std::vector<std::string>& ours,
                                          const std::map<std::string, std::string>& external_names) {
  std::vector<ParameterName> names;
  for (const std::string& name : ours) {
    const auto it = external_names.find(name);
    names.push_back({name, it == external_names.end() ? name : it->second});
  }
  return names;
}

namespace {

bool picksName(const std::string& pattern, const std::string& name) {
  return globMatches(pattern, name) || globMatches(pattern + ".*", name);
}

}  // namespace

std::vector<size_t> patternPicks(const std::string& pattern, const std::vector<ParameterName>& names) {
  std::vector<size_t> picked;
  for (size_t i = 0; i < names.size(); ++i) {
    if (picksName(pattern, names[i].external)) picked.push_back(i);
  }
  if (!picked.empty()) return picked;
  for (size_t i = 0; i < names.size(); ++i) {
    if (picksName(pattern, names[i].ours)) picked.push_back(i);
  }
  return picked;
}

std::string noMatchMessage(const std::string& path, const std::string& pattern,
                           const std::vector<ParameterName>& names) {
  // Candidates: every module a name passes through, as a pattern ("layer1.*", "layer1.0.*"), and the names.
  std::set<std::string> seen;
  std::vector<std::string> candidates;
  for (const ParameterName& name : names) {
    for (size_t dot = name.external.find('.'); dot != std::string::npos;
         dot = name.external.find('.', dot + 1)) {
      const std::string module = name.external.substr(0, dot);
      if (seen.insert(module + ".*").second) candidates.push_back(module + ".*");
      if (seen.insert(module).second) candidates.push_back(module);
    }
    if (seen.insert(name.external).second) candidates.push_back(name.external);
  }
  std::string message = path + ": \"" + pattern + "\" matches no parameter of the model";
  const std::string suggestion = didYouMean(pattern, candidates);
  if (!suggestion.empty()) return message + "; did you mean \"" + suggestion + "\"?";
  message += " (its parameters are named like";
  for (size_t i = 0; i < names.size() && i < 3; ++i)
    message += (i ? ", \"" : " \"") + names[i].external + "\"";
  return message + ")";
}

}  // namespace wb
