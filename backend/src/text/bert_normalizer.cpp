#include "text/bert_normalizer.h"

#include "text/unicode_chars.h"

namespace wb::text {
namespace {

bool isBertWhitespace(char32_t c) {
  return c == U'\t' || c == U'\n' || c == U'\r' || isWhiteSpace(c);
}

bool isBertControl(char32_t c) {
  return c != U'\t' && c != U'\n' && c != U'\r' && isOtherCategory(c);
}

// The CJK Unified Ideographs blocks, as BERT defines "Chinese character" (not Hangul, Hiragana or Katakana).
bool isChineseChar(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

std::u32string cleanText(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (const char32_t c : text) {
    if (c == 0 || c == 0xFFFD || isBertControl(c)) continue;
    out.push_back(isBertWhitespace(c) ? U' ' : c);
  }
  return out;
}

std::u32string spaceChineseChars(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (const char32_t c : text) {
    if (isChineseChar(c)) {
      out.push_back(U' ');
      out.push_back(c);
      out.push_back(U' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::u32string stripAccents(const std::u32string& text) {
  std::u32string out;
  for (const char32_t c : toNfd(text)) {
    if (!isNonSpacingMark(c)) out.push_back(c);
  }
  return out;
}

std::u32string lowercase(const std::u32string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (const char32_t c : text) appendLowercase(c, out);
  return out;
}

}  // namespace

std::u32string BertNormalizer::normalize(std::u32string text) const {
  if (m_options.clean_text) text = cleanText(text);
  if (m_options.handle_chinese_chars) text = spaceChineseChars(text);
  if (m_options.strip_accents.value_or(m_options.lowercase)) text = stripAccents(text);
  if (m_options.lowercase) text = lowercase(text);
  return text;
}

}  // namespace wb::text
