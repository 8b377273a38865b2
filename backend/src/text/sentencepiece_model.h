#pragma once
// A SentencePiece .model (T5's, ALBERT's, XLNet's, a model trained by `workbench-cli train-tokenizer`) as
// a subword model: SentencePiece normalizes and splits the text itself, so its tokenizer has no normalizer or
// pre-tokenizer of ours, and its ids are SentencePiece's own (Debian's library, sentencepiece_library.h).

#include <filesystem>
#include <memory>

#include "text/subword_model.h"
#include "text/text_tokenizer.h"

namespace wb::text {

class SentencePieceModel final : public SubwordModel {
 public:
  // DataError naming the file when SentencePiece cannot load it.
  explicit SentencePieceModel(const std::filesystem::path& file);
  ~SentencePieceModel() override;
  SentencePieceModel(const SentencePieceModel&) = delete;
  SentencePieceModel& operator=(const SentencePieceModel&) = delete;

  // `word` is a whole text here (no pre-tokenizer).
  void tokenize(const std::u32string& word, std::vector<TokenPiece>& out) const override;
  const TokenVocabulary& vocabulary() const override { return m_vocabulary; }

 private:
  void* m_model = nullptr;
  TokenVocabulary m_vocabulary;
};

std::unique_ptr<TextTokenizer> readSentencePieceModel(const std::filesystem::path& file);

}  // namespace wb::text
