#pragma once
// A tokenizer's vocabulary: piece ↔ id, as vocab.txt lists it (line n is id n) or tokenizer.json's
// model.vocab maps it.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wb::text {

class TokenVocabulary {
 public:
  // Refuses a piece given twice or an id given twice (std::invalid_argument naming it).
  void add(std::string piece, std::int64_t id);
  std::optional<std::int64_t> find(const std::string& piece) const;
  // "" for an id no piece has.
  const std::string& piece(std::int64_t id) const;
  // One past the largest id: the rows an embedding needs.
  std::int64_t size() const { return static_cast<std::int64_t>(m_pieces.size()); }

 private:
  std::unordered_map<std::string, std::int64_t> m_ids;
  std::vector<std::string> m_pieces;
};

}  // namespace wb::text
