#pragma once
// The Unicode facts the tokenizers need, from ICU (Debian's libicu): UTF-8 in and out, character categories,
// NFD and lowercase — asked the way Hugging Face's tokenizers (Rust's char methods) ask them, so that a text
// gets the same ids here as in Python.

#include <cstddef>
#include <string>
#include <string_view>

namespace wb::text {

// The code points of a UTF-8 text; UserError naming the byte offset where it is not UTF-8 (`what` names the
// text's origin in the message, e.g. "the text").
std::u32string decodeUtf8(std::string_view utf8, std::string_view what = "the text");
std::string encodeUtf8(std::u32string_view text);
std::string encodeUtf8(char32_t c);

// Rust's char::is_whitespace: Unicode's White_Space property.
bool isWhiteSpace(char32_t c);
// unicode_categories' is_other: Cc, Cf, Cn, Co, Cs.
bool isOtherCategory(char32_t c);
// unicode_categories' is_punctuation: the P* categories (Pc Pd Pe Pf Pi Po Ps).
bool isPunctuation(char32_t c);
// Mn: what BERT's accent stripping removes after NFD.
bool isNonSpacingMark(char32_t c);
// Regex \w as Rust's regex crate has it (Alphabetic, M*, Nd, Pc, Join_Control).
bool isWordChar(char32_t c);

// Canonical decomposition of the whole text (reordering marks across neighbours, as NFD does).
std::u32string toNfd(std::u32string_view text);
// Rust's char::to_lowercase for one code point: the full mapping, one to three code points, appended to
// `out`.
void appendLowercase(char32_t c, std::u32string& out);

}  // namespace wb::text
