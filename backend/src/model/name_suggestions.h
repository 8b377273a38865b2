#pragma once
// Words for messages about a name that is not valid (a layer type, a parameter, a preset).

#include <string>
#include <vector>

namespace wb {

// " Did you mean \"conv2d\"?" when a candidate is a likely typo of `word` (the experiment module's
// didYouMean, so every part of the workbench guesses the same way), else " Valid: a, b, c."
std::string suggestionText(const std::string& word, const std::vector<std::string>& candidates);

// "a, b, c"
std::string joinedNames(const std::vector<std::string>& names);

}  // namespace wb
