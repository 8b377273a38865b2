#include "model/name_suggestions.h"

#include "workbench/did_you_mean.h"

namespace wb {

std::string joinedNames(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

std::string suggestionText(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string match = didYouMean(word, candidates);
  if (!match.empty()) return " Did you mean \"" + match + "\"?";
  return " Valid: " + joinedNames(candidates) + ".";
}

}  // namespace wb
