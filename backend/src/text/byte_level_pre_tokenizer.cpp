#include "text/byte_level_pre_tokenizer.h"

#include <unicode/uchar.h>

#include <array>

#include "text/unicode_chars.h"

namespace wb::text {
namespace {

bool isLetter(char32_t c) {
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
      return true;
    default:
      return false;
  }
}

bool isNumber(char32_t c) {
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER:
      return true;
    default:
      return false;
  }
}

bool isOther(char32_t c) {
  return !isWhiteSpace(c) && !isLetter(c) && !isNumber(c);
}

// The length of GPT-2's pattern's match at `at` (every character matches one of its alternatives, tried in
// order as a backtracking engine such as tokenizers' Oniguruma tries them).
size_t matchAt(const std::u32string& text, size_t at) {
  const size_t n = text.size();
  if (text[at] == U'\'') {
    for (const std::u32string_view contraction : {U"s", U"t", U"re", U"ve", U"m", U"ll", U"d"}) {
      if (text.compare(at + 1, contraction.size(), contraction) == 0) return 1 + contraction.size();
    }
  }
  // " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": a space is none of these classes, so the optional space
  // only ever helps when the class follows it.
  const size_t from = text[at] == U' ' && at + 1 < n ? at + 1 : at;
  for (bool (*const inClass)(char32_t) : {isLetter, isNumber, isOther}) {
    size_t end = from;
    while (end < n && inClass(text[end])) ++end;
    if (end > from) return end - at;
  }
  // "\s+(?!\S)" leaves the run's last space to the word that follows it; "\s+" takes a lone one.
  size_t end = at;
  while (end < n && isWhiteSpace(text[end])) ++end;
  if (end == n || end - at == 1) return end - at;
  return end - at - 1;
}

const std::array<char32_t, 256>& byteChars() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> chars{};
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      chars[static_cast<size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
    }
    return chars;
  }();
  return table;
}

std::u32string asByteChars(const std::u32string& word) {
  std::u32string out;
  for (const unsigned char byte : encodeUtf8(word)) out.push_back(byteChars()[byte]);
  return out;
}

}  // namespace

char32_t ByteLevelPreTokenizer::byteChar(unsigned char byte) {
  return byteChars()[byte];
}

void ByteLevelPreTokenizer::split(const std::u32string& input, std::vector<std::u32string>& words) const {
  std::u32string text = input;
  if (m_options.add_prefix_space && !text.empty() && text.front() != U' ') text.insert(text.begin(), U' ');
  if (!m_options.use_regex) {
    if (!text.empty()) words.push_back(asByteChars(text));
    return;
  }
  for (size_t at = 0; at < text.size();) {
    const size_t length = matchAt(text, at);
    words.push_back(asByteChars(text.substr(at, length)));
    at += length;
  }
}

}  // namespace wb::text
