#include "text/wordpiece_model.h"

#include <stdexcept>

#include "text/unicode_chars.h"

namespace wb::text {

WordPieceModel::WordPieceModel(TokenVocabulary vocabulary, WordPieceOptions options)
    : m_vocabulary(std::move(vocabulary)), m_options(std::move(options)) {
  const auto unk = m_vocabulary.find(m_options.unk_token);
  if (!unk)
    throw std::invalid_argument("the unknown token '" + m_options.unk_token + "' is not in the vocabulary");
  m_unk_id = *unk;
}

void WordPieceModel::tokenize(const std::u32string& word, std::vector<TokenPiece>& out) const {
  if (word.size() > m_options.max_input_chars_per_word) {
    out.push_back({m_unk_id, m_options.unk_token});
    return;
  }
  // The byte offset of each character in the word's UTF-8, so that each candidate is a substring.
  const std::string utf8 = encodeUtf8(word);
  std::vector<size_t> offsets;
  offsets.reserve(word.size() + 1);
  for (size_t i = 0, at = 0; i < word.size(); ++i) {
    offsets.push_back(at);
    at += encodeUtf8(word[i]).size();
  }
  offsets.push_back(utf8.size());
  const size_t first = out.size();
  for (size_t start = 0; start < word.size();) {
    size_t end = word.size();
    bool found = false;
    for (; end > start; --end) {
      std::string candidate = utf8.substr(offsets[start], offsets[end] - offsets[start]);
      if (start > 0) candidate.insert(0, m_options.continuing_subword_prefix);
      if (const auto id = m_vocabulary.find(candidate)) {
        out.push_back({*id, std::move(candidate)});
        found = true;
        break;
      }
    }
    if (!found) {  // the whole word is unknown, not only the rest of it
      out.resize(first);
      out.push_back({m_unk_id, m_options.unk_token});
      return;
    }
    start = end;
  }
}

}  // namespace wb::text
