#pragma once
// A tokenizer trained on a user's own texts, for a model trained from scratch (no pretrained folder, no
// tokenizer): SentencePiece's trainer (Debian's library) on a text file, one text a line, written as
// <folder>/tokenizer.model with its pieces in tokenizer.vocab — what `workbench-cli train-tokenizer` does.

#include <array>
#include <cstdint>
#include <string>

#include "workbench/word_set.h"

namespace wb {

// SentencePiece's model types: unigram (its default, T5's and ALBERT's) and byte-pair encoding.
enum class TokenizerAlgorithm { Unigram, Bpe };
template <>
struct Words<TokenizerAlgorithm> {
  static constexpr std::array<Word<TokenizerAlgorithm>, 2> table{
      {{TokenizerAlgorithm::Unigram, "unigram"}, {TokenizerAlgorithm::Bpe, "bpe"}}};
};
static_assert(isWholeWordTable<TokenizerAlgorithm>());

struct TokenizerTrainingRequest {
  std::string texts_file;     // UTF-8, one text a line; read, never written
  std::string output_folder;  // made when missing; tokenizer.model and tokenizer.vocab go in it
  std::int64_t vocabulary_size = 8000;
  TokenizerAlgorithm algorithm = TokenizerAlgorithm::Unigram;
};

struct TokenizerTrainingResult {
  std::string model_file;
  std::int64_t vocabulary_size = 0;
};

// DataError naming the file, or SentencePiece's own reason (too few texts for the size asked, ...). The files
// appear whole or not at all (trained in a folder beside them, then renamed).
TokenizerTrainingResult trainTokenizer(const TokenizerTrainingRequest& request);

}  // namespace wb
