#pragma once
// A tokenizer's first stage: the text rewritten before it is split (Hugging Face's `normalizer`). One
// subclass per kind a tokenizer.json names; BERT's is bert_normalizer.h.

#include <string>

namespace wb::text {

class TextNormalizer {
 public:
  virtual ~TextNormalizer() = default;
  virtual std::u32string normalize(std::u32string text) const = 0;
};

}  // namespace wb::text
