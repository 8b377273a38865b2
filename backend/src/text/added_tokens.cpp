#include "text/added_tokens.h"

#include "text/unicode_chars.h"

namespace wb::text {

const AddedToken* AddedTokens::find(const std::string& content) const {
  for (const AddedToken& token : m_tokens) {
    if (encodeUtf8(token.content) == content) return &token;
  }
  return nullptr;
}

const AddedToken* AddedTokens::longestAt(const std::u32string& text, size_t at, bool normalized) const {
  const AddedToken* best = nullptr;
  for (const AddedToken& token : m_tokens) {
    if (token.normalized != normalized || token.content.empty()) continue;
    if (best != nullptr && token.content.size() <= best->content.size()) continue;
    if (text.compare(at, token.content.size(), token.content) == 0) best = &token;
  }
  return best;
}

std::vector<TextSegment> AddedTokens::split(const std::u32string& text, bool normalized) const {
  std::vector<TextSegment> segments;
  size_t kept = 0;  // the end of what is already in `segments`
  for (size_t at = 0; at < text.size();) {
    const AddedToken* token = longestAt(text, at, normalized);
    if (token == nullptr) {
      ++at;
      continue;
    }
    size_t start = at;
    size_t stop = at + token->content.size();
    at = stop;  // matches never overlap: the search goes on after this one, whatever it takes below
    if (token->single_word) {
      const bool wordBefore = start > 0 && isWordChar(text[start - 1]);
      const bool wordAfter = stop < text.size() && isWordChar(text[stop]);
      if (wordBefore || wordAfter) continue;
    }
    if (token->lstrip) {
      while (start > kept && isWhiteSpace(text[start - 1])) --start;
    }
    if (token->rstrip) {
      while (stop < text.size() && isWhiteSpace(text[stop])) ++stop;
    }
    if (kept < start) segments.push_back({text.substr(kept, start - kept), std::nullopt});
    const std::u32string matched = text.substr(start, stop - start);
    segments.push_back({matched, TokenPiece{token->id, encodeUtf8(matched)}});
    kept = stop;
  }
  if (kept < text.size() || segments.empty()) segments.push_back({text.substr(kept), std::nullopt});
  return segments;
}

}  // namespace wb::text
