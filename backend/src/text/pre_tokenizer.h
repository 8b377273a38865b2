#pragma once
// A tokenizer's second stage: the normalized text split into words the subword model takes one at a time
// (Hugging Face's `pre_tokenizer`). BERT's is bert_pre_tokenizer.h.

#include <string>
#include <vector>

namespace wb::text {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void split(const std::u32string& text, std::vector<std::u32string>& words) const = 0;
};

}  // namespace wb::text
