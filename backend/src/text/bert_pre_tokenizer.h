#pragma once
// BERT's pre-tokenizer (pre_tokenizers/bert.rs): words split at whitespace, which is dropped, and every
// punctuation character (ASCII's, symbols such as $ + < = > ^ ` | ~ included, and Unicode's P*) a word of its
// own.

#include "text/pre_tokenizer.h"

namespace wb::text {

class BertPreTokenizer final : public PreTokenizer {
 public:
  void split(const std::u32string& text, std::vector<std::u32string>& words) const override;
};

}  // namespace wb::text
