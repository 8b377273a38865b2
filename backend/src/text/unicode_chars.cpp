#include "text/unicode_chars.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#include <stdexcept>

#include "workbench/errors.h"

namespace wb::text {

std::u32string decodeUtf8(std::string_view utf8, std::string_view what) {
  std::u32string out;
  out.reserve(utf8.size());
  const auto* bytes = reinterpret_cast<const uint8_t*>(utf8.data());
  const auto length = static_cast<int32_t>(utf8.size());
  int32_t i = 0;
  while (i < length) {
    const int32_t at = i;
    UChar32 c = 0;
    U8_NEXT(bytes, i, length, c);
    if (c < 0) {
      throw DataError(std::string(what) + " is not UTF-8 (byte " + std::to_string(at) + ")",
                      "save it as UTF-8 (iconv -f <its encoding> -t UTF-8)");
    }
    out.push_back(static_cast<char32_t>(c));
  }
  return out;
}

std::string encodeUtf8(char32_t c) {
  std::string out;
  encodeUtf8(std::u32string_view(&c, 1)).swap(out);
  return out;
}

std::string encodeUtf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char32_t c : text) {
    uint8_t buffer[U8_MAX_LENGTH];
    int32_t n = 0;
    UBool error = false;
    U8_APPEND(buffer, n, U8_MAX_LENGTH, static_cast<UChar32>(c), error);
    if (error) throw std::invalid_argument("not a Unicode code point: " + std::to_string(c));
    out.append(reinterpret_cast<const char*>(buffer), static_cast<size_t>(n));
  }
  return out;
}

bool isWhiteSpace(char32_t c) {
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_WHITE_SPACE);
}

bool isOtherCategory(char32_t c) {
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_UNASSIGNED:
    case U_PRIVATE_USE_CHAR:
    case U_SURROGATE:
      return true;
    default:
      return false;
  }
}

bool isPunctuation(char32_t c) {
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONNECTOR_PUNCTUATION:
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION:
    case U_OTHER_PUNCTUATION:
      return true;
    default:
      return false;
  }
}

bool isNonSpacingMark(char32_t c) {
  return u_charType(static_cast<UChar32>(c)) == U_NON_SPACING_MARK;
}

bool isWordChar(char32_t c) {
  const auto u = static_cast<UChar32>(c);
  switch (u_charType(u)) {
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_COMBINING_SPACING_MARK:
    case U_DECIMAL_DIGIT_NUMBER:
    case U_CONNECTOR_PUNCTUATION:
      return true;
    default:
      return u_hasBinaryProperty(u, UCHAR_ALPHABETIC) || u_hasBinaryProperty(u, UCHAR_JOIN_CONTROL);
  }
}

namespace {

// UTF-16, ICU's own form, and back.
std::u16string toUtf16(std::u32string_view text) {
  std::u16string out;
  out.reserve(text.size());
  for (const char32_t c : text) {
    UChar buffer[2];
    int32_t n = 0;
    U16_APPEND_UNSAFE(buffer, n, static_cast<UChar32>(c));
    out.append(reinterpret_cast<const char16_t*>(buffer), static_cast<size_t>(n));
  }
  return out;
}

void appendUtf32(const UChar* text, int32_t length, std::u32string& out) {
  int32_t i = 0;
  while (i < length) {
    UChar32 c = 0;
    U16_NEXT(text, i, length, c);
    out.push_back(static_cast<char32_t>(c));
  }
}

}  // namespace

std::u32string toNfd(std::u32string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(status);
  if (U_FAILURE(status))
    throw std::runtime_error(std::string("ICU's NFD is unavailable: ") + u_errorName(status));
  const std::u16string utf16 = toUtf16(text);
  const icu::UnicodeString source(false, reinterpret_cast<const UChar*>(utf16.data()),
                                  static_cast<int32_t>(utf16.size()));
  const icu::UnicodeString decomposed = nfd->normalize(source, status);
  if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU's NFD failed: ") + u_errorName(status));
  std::u32string out;
  out.reserve(text.size());
  appendUtf32(decomposed.getBuffer(), decomposed.length(), out);
  return out;
}

void appendLowercase(char32_t c, std::u32string& out) {
  if (c < 0x80) {  // the common case, without ICU
    out.push_back(c >= U'A' && c <= U'Z' ? c + 32 : c);
    return;
  }
  UChar source[2];
  int32_t n = 0;
  U16_APPEND_UNSAFE(source, n, static_cast<UChar32>(c));
  UChar lowered[8];
  UErrorCode status = U_ZERO_ERROR;
  // One code point on its own: no context, so Σ is σ (as Rust's char::to_lowercase), never the final ς.
  const int32_t length = u_strToLower(lowered, 8, source, n, "", &status);
  if (U_FAILURE(status)) {
    out.push_back(c);
    return;
  }
  appendUtf32(lowered, length, out);
}

}  // namespace wb::text
