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
// offered (the first is the default where one is needed).
template <typename E>
struct Words;

// The word for `value` (every value has one: a value missing from its table is a compile-time error below).
template <typename E>
constexpr std::string_view wordOf(E value) {
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
  for (const Word<E>& entry : Words<E>::table) {
    if (entry.word == word) return entry.value;
  }
  return std::nullopt;
}

// Every word, in the table's order (a form's choices, a schema's "expected one of").
template <typename E>
std::vector<std::string> allWords() {
  std::vector<std::string> words;
  for (const Word<E>& entry : Words<E>::table) words.emplace_back(entry.word);
  return words;
}

// Each value of a table has its word, and no word is written twice.
template <typename E>
constexpr bool wordsAreDistinct() {
  const auto& table = Words<E>::table;
  for (std::size_t i = 0; i < table.size(); ++i) {
    for (std::size_t j = i + 1; j < table.size(); ++j) {
      if (table[i].value == table[j].value || table[i].word == table[j].word) return false;
    }
  }
  return true;
}

}  // namespace wb
