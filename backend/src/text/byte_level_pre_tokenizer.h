#pragma once
// GPT-2's pre-tokenizer, which RoBERTa and most byte-level BPE tokenizers share
// (pre_tokenizers/byte_level.rs): the text split as GPT-2's pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// splits it (a space stays with the word after it), then each word's UTF-8 bytes written as printable
// characters (GPT-2's bytes_to_unicode: a space is "Ġ"), which the BPE's vocabulary is made of.

#include "text/pre_tokenizer.h"

namespace wb::text {

struct ByteLevelOptions {
  bool add_prefix_space = false;  // a space before a text that starts without one (RoBERTa's option)
  bool use_regex = true;          // false: the whole text one word (bytes only)
};

class ByteLevelPreTokenizer final : public PreTokenizer {
 public:
  explicit ByteLevelPreTokenizer(ByteLevelOptions options) : m_options(options) {}
  void split(const std::u32string& text, std::vector<std::u32string>& words) const override;

  // GPT-2's printable character for a byte.
  static char32_t byteChar(unsigned char byte);

 private:
  ByteLevelOptions m_options;
};

}  // namespace wb::text
