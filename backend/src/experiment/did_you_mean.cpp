#include "workbench/did_you_mean.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <limits>

namespace wb {
namespace {

std::string lowercase(const std::string& text) {
  std::string result = text;
  for (char& c : result) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return result;
}

// Lowercase without separators and spaces: "Batch-Size " and "batch_size" are the same key to a person.
std::string normalized(const std::string& text) {
  std::string result;
  for (char c : text) {
    if (c == '_' || c == '-' || std::isspace(static_cast<unsigned char>(c))) continue;
    result += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return result;
}

// Levenshtein distance that also counts a swap of two neighbouring letters as one edit (optimal string
// alignment): swapped letters are the commonest typo and plain Levenshtein charges two for them.
size_t editDistance(const std::string& a, const std::string& b) {
  const size_t n = a.size();
  const size_t m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

// Short words tolerate one slip, longer ones up to three: "lr" must not be suggested for "x", but
// "warmup_step" is clearly "warmup_steps".
size_t allowedDistance(const std::string& candidate) {
  return std::clamp<size_t>(candidate.size() / 3, 1, 3);
}

}  // namespace

std::string didYouMean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string wordKey = normalized(word);
  for (const std::string& candidate : candidates) {
    if (!wordKey.empty() && normalized(candidate) == wordKey) return candidate;
  }
  const std::string wordLower = lowercase(word);
  std::string best;
  size_t bestDistance = std::numeric_limits<size_t>::max();
  for (const std::string& candidate : candidates) {
    const size_t distance = editDistance(wordLower, lowercase(candidate));
    // A distance as long as the candidate means nothing of it was typed.
    if (distance > allowedDistance(candidate) || distance >= candidate.size()) continue;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (!best.empty()) return best;

  // A word cut short or run on ("val_acc", "cosine" for "cos", "minimum" for "min") is still recognisable
  // when the shared start is long enough to mean something.
  constexpr size_t minimumShared = 3;
  size_t bestGap = std::numeric_limits<size_t>::max();
  for (const std::string& candidate : candidates) {
    const std::string candidateLower = lowercase(candidate);
    const std::string& shorter = candidateLower.size() < wordLower.size() ? candidateLower : wordLower;
    const std::string& longer = candidateLower.size() < wordLower.size() ? wordLower : candidateLower;
    if (shorter.size() < minimumShared || longer.compare(0, shorter.size(), shorter) != 0) continue;
    const size_t gap = longer.size() - shorter.size();
    if (gap < bestGap) {
      best = candidate;
      bestGap = gap;
    }
  }
  return best;
}

}  // namespace wb
