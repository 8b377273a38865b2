#pragma once
// A fixed set of words as a type. A setting that an experiment file, the run index or a command line spells
// as one of a few words (train.amp's "off" | "bf16" | "fp16") is an enum in the engine, the window and the
// CLI; its words are written once, in a table beside the enum (a specialization of Words<E>). They are parsed
// where they come in (the experiment file's schema builds its choices from the table) and printed where they
// go out; everything between compares values. Adding a value is one enumerator and one row of its table.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wb {

template <typename E>
struct Word {
  E value;
  std::string_view word;
};

// Specialized beside each enum: `static constexpr std::array<Word<E>, N> table`, in the order the words are
// offered (the first is the default where one is needed), followed by `static_assert(isWholeWordTable<E>())`.
// The enum's values run from 0 without gaps (the check below needs it, and says so when they do not).
template <typename E>
struct Words;

namespace word_set_detail {

inline constexpr bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether an enumerator is named `V`. GCC and Clang spell a function template's arguments at the end of
// __PRETTY_FUNCTION__, and an enum value there as its enumerator ("[with auto V = wb::Precision::Fp16]") or,
// when no enumerator has that value, as a cast ("[with auto V = (wb::Precision)3]"): the last word before
// the closing bracket is then a number. (The magic_enum library reads enumerator names the same way.)
template <auto V>
constexpr bool isNamedEnumerator() {
  constexpr std::string_view signature = __PRETTY_FUNCTION__;
  const std::size_t end = signature.rfind(']');
  std::size_t begin = end;
  while (begin > 0 && isIdentifierChar(signature[begin - 1])) --begin;
  return begin < end && !(signature[begin] >= '0' && signature[begin] <= '9');
}

// A compiler that spelled them otherwise would make every table look whole (or none): stop the build there.
enum class SpellingProbe { Named };
static_assert(isNamedEnumerator<SpellingProbe::Named>() &&
                  !isNamedEnumerator<static_cast<SpellingProbe>(1)>(),
              "this compiler spells enum values in __PRETTY_FUNCTION__ in an unknown way: word_set.h cannot "
              "check that every value has a word");

}  // namespace word_set_detail

// Every enumerator of E has exactly one row and no word is written twice. With N rows, the values must be
// 0 .. N-1 (each once) and no enumerator may be named N: an enumerator left out of the table is then either a
// gap among the first N values or, when it is the last, an enumerator named N.
template <typename E>
constexpr bool isWholeWordTable() {
  const auto& table = Words<E>::table;
  constexpr std::size_t rows = Words<E>::table.size();
  for (std::size_t i = 0; i < rows; ++i) {
    bool found = false;
    for (const Word<E>& entry : table) found = found || static_cast<std::size_t>(entry.value) == i;
    if (!found) return false;
    for (std::size_t j = i + 1; j < rows; ++j) {
      if (table[i].value == table[j].value || table[i].word == table[j].word) return false;
    }
  }
  return !word_set_detail::isNamedEnumerator<static_cast<E>(rows)>();
}

// The word for `value` (every value has one: a value missing from its table is a compile-time error, here
// and beside the table).
template <typename E>
constexpr std::string_view wordOf(E value) {
  static_assert(isWholeWordTable<E>(), "an enumerator has no row in its Words<E> table");
  for (const Word<E>& entry : Words<E>::table) {
    if (entry.value == value) return entry.word;
  }
  return {};
}

template <typename E>
std::string wordString(E value) {
  return std::string(wordOf(value));
}

// The value spelled `word` exactly, or none.
template <typename E>
constexpr std::optional<E> fromWord(std::string_view word) {
  static_assert(isWholeWordTable<E>(), "an enumerator has no row in its Words<E> table");
  for (const Word<E>& entry : Words<E>::table) {
    if (entry.word == word) return entry.value;
  }
  return std::nullopt;
}

// Every word, in the table's order (a form's choices, a schema's "expected one of").
template <typename E>
std::vector<std::string> allWords() {
  static_assert(isWholeWordTable<E>(), "an enumerator has no row in its Words<E> table");
  std::vector<std::string> words;
  for (const Word<E>& entry : Words<E>::table) words.emplace_back(entry.word);
  return words;
}

}  // namespace wb
