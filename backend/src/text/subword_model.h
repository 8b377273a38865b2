#pragma once
// A tokenizer's third stage: one word into the vocabulary's pieces (Hugging Face's `model`). WordPiece
// (wordpiece_model.h) is BERT's; byte-level BPE and SentencePiece come beside it.

#include <cstdint>
#include <string>
#include <vector>

#include "text/token_vocabulary.h"

namespace wb::text {

struct TokenPiece {
  std::int64_t id = 0;
  std::string piece;
};

class SubwordModel {
 public:
  virtual ~SubwordModel() = default;
  virtual void tokenize(const std::u32string& word, std::vector<TokenPiece>& out) const = 0;
  virtual const TokenVocabulary& vocabulary() const = 0;
};

}  // namespace wb::text
