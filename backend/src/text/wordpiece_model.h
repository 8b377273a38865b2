#pragma once
// WordPiece as BERT and Hugging Face's tokenizers run it (models/wordpiece): greedy longest match from the
// word's start, later pieces looked up with the continuing prefix ("##"); a word with a part no piece covers,
// or longer than max_input_chars_per_word characters, is one unknown token.

#include <string>

#include "text/subword_model.h"

namespace wb::text {

struct WordPieceOptions {
  std::string unk_token = "[UNK]";
  std::string continuing_subword_prefix = "##";
  size_t max_input_chars_per_word = 100;
};

class WordPieceModel final : public SubwordModel {
 public:
  // std::invalid_argument when the vocabulary lacks the unknown token.
  WordPieceModel(TokenVocabulary vocabulary, WordPieceOptions options);
  void tokenize(const std::u32string& word, std::vector<TokenPiece>& out) const override;
  const TokenVocabulary& vocabulary() const override { return m_vocabulary; }

 private:
  TokenVocabulary m_vocabulary;
  WordPieceOptions m_options;
  std::int64_t m_unk_id = 0;
};

}  // namespace wb::text
