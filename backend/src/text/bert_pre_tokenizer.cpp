#include "text/bert_pre_tokenizer.h"

#include "text/unicode_chars.h"

namespace wb::text {
namespace {

bool isAsciiPunctuation(char32_t c) {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

bool isBertPunctuation(char32_t c) {
  return isAsciiPunctuation(c) || isPunctuation(c);
}

}  // namespace

void BertPreTokenizer::split(const std::u32string& text, std::vector<std::u32string>& words) const {
  std::u32string word;
  const auto endWord = [&] {
    if (!word.empty()) words.push_back(std::move(word));
    word.clear();
  };
  for (const char32_t c : text) {
    if (isWhiteSpace(c)) {
      endWord();
    } else if (isBertPunctuation(c)) {
      endWord();
      words.emplace_back(1, c);
    } else {
      word.push_back(c);
    }
  }
  endWord();
}

}  // namespace wb::text
