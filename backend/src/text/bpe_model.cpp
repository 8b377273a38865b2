#include "text/bpe_model.h"

#include <limits>
#include <stdexcept>

#include "text/unicode_chars.h"

namespace wb::text {

BpeModel::BpeModel(TokenVocabulary vocabulary, const std::vector<std::pair<std::string, std::string>>& merges,
                   BpeOptions options)
    : m_vocabulary(std::move(vocabulary)), m_options(std::move(options)) {
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& [left, right] = merges[rank];
    // The merged piece must be a word of the vocabulary (with the prefix stripped from the right one).
    std::string merged = left + right.substr(right.rfind(m_options.continuing_subword_prefix, 0) == 0 &&
                                                     !m_options.continuing_subword_prefix.empty()
                                                 ? m_options.continuing_subword_prefix.size()
                                                 : 0);
    if (!m_vocabulary.find(merged)) {
      throw std::invalid_argument("the merge '" + left + " " + right + "' (rank " + std::to_string(rank) +
                                  ") makes '" + merged + "', which the vocabulary lacks");
    }
    m_ranks.emplace(merges[rank], rank);
  }
}

void BpeModel::tokenize(const std::u32string& word, std::vector<TokenPiece>& out) const {
  if (word.empty()) return;
  if (m_options.ignore_merges) {
    const std::string whole = encodeUtf8(word);
    if (const auto id = m_vocabulary.find(whole)) {
      out.push_back({*id, whole});
      return;
    }
  }
  // Each character a symbol, as the vocabulary has it: one it lacks is the unknown token (fused with an
  // unknown neighbour if asked) or, without one, dropped — before any merge, as tokenizers does.
  std::vector<std::string> symbols;
  symbols.reserve(word.size());
  bool lastWasUnknown = false;
  for (size_t i = 0; i < word.size(); ++i) {
    std::string symbol = encodeUtf8(word[i]);
    if (i > 0) symbol.insert(0, m_options.continuing_subword_prefix);
    if (i + 1 == word.size()) symbol += m_options.end_of_word_suffix;
    if (m_vocabulary.find(symbol)) {
      symbols.push_back(std::move(symbol));
      lastWasUnknown = false;
    } else if (m_options.unk_token && m_vocabulary.find(*m_options.unk_token)) {
      if (!(m_options.fuse_unk && lastWasUnknown)) symbols.push_back(*m_options.unk_token);
      lastWasUnknown = true;
    }
  }
  while (symbols.size() > 1) {
    size_t best = std::numeric_limits<size_t>::max();
    size_t at = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto found = m_ranks.find({symbols[i], symbols[i + 1]});
      if (found != m_ranks.end() && found->second < best) {
        best = found->second;
        at = i;
      }
    }
    if (best == std::numeric_limits<size_t>::max()) break;
    const std::string& right = symbols[at + 1];
    const size_t prefix = m_options.continuing_subword_prefix.size();
    symbols[at] +=
        prefix > 0 && right.rfind(m_options.continuing_subword_prefix, 0) == 0 ? right.substr(prefix) : right;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
  for (std::string& symbol : symbols) {
    const auto id = m_vocabulary.find(symbol);
    out.push_back({id.value_or(0), std::move(symbol)});  // every symbol is a piece: merges make pieces
  }
}

}  // namespace wb::text
