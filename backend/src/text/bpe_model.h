#pragma once
// Byte-pair encoding as GPT-2, RoBERTa and Hugging Face's tokenizers run it (models/bpe): a word's characters
// merged pair by pair, always the adjacent pair whose merge is listed first (leftmost on a tie), until no
// listed merge applies; each symbol is then its vocabulary id. A symbol the vocabulary lacks is the unknown
// token when there is one (consecutive ones fused if asked), dropped otherwise, as there.

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "text/subword_model.h"

namespace wb::text {

struct BpeOptions {
  std::optional<std::string> unk_token;
  bool fuse_unk = false;
  bool ignore_merges = false;  // a word the vocabulary has whole is taken whole (Llama 3's tokenizers)
  std::string continuing_subword_prefix;
  std::string end_of_word_suffix;
};

class BpeModel final : public SubwordModel {
 public:
  // merges: the pairs in rank order. std::invalid_argument when a merge names a piece the vocabulary lacks.
  BpeModel(TokenVocabulary vocabulary, const std::vector<std::pair<std::string, std::string>>& merges,
           BpeOptions options);
  void tokenize(const std::u32string& word, std::vector<TokenPiece>& out) const override;
  const TokenVocabulary& vocabulary() const override { return m_vocabulary; }

 private:
  TokenVocabulary m_vocabulary;
  std::map<std::pair<std::string, std::string>, size_t> m_ranks;
  BpeOptions m_options;
};

}  // namespace wb::text
