#include "text/token_vocabulary.h"

#include <stdexcept>

namespace wb::text {

void TokenVocabulary::add(std::string piece, std::int64_t id) {
  if (id < 0) throw std::invalid_argument("the piece '" + piece + "' has a negative id");
  if (m_ids.count(piece) != 0) throw std::invalid_argument("the piece '" + piece + "' is listed twice");
  if (static_cast<size_t>(id) >= m_pieces.size()) m_pieces.resize(static_cast<size_t>(id) + 1);
  if (!m_pieces[static_cast<size_t>(id)].empty()) {
    throw std::invalid_argument("the id " + std::to_string(id) + " is given to '" + m_pieces[id] + "' and '" +
                                piece + "'");
  }
  m_pieces[static_cast<size_t>(id)] = piece;
  m_ids.emplace(std::move(piece), id);
}

std::optional<std::int64_t> TokenVocabulary::find(const std::string& piece) const {
  const auto found = m_ids.find(piece);
  if (found == m_ids.end()) return std::nullopt;
  return found->second;
}

const std::string& TokenVocabulary::piece(std::int64_t id) const {
  static const std::string none;
  if (id < 0 || static_cast<size_t>(id) >= m_pieces.size()) return none;
  return m_pieces[static_cast<size_t>(id)];
}

}  // namespace wb::text
