#include "text/text_tokenizer.h"

#include <algorithm>
#include <stdexcept>

#include "text/unicode_chars.h"

namespace wb::text {
namespace {

// Longest-first for a pair (tokenizers' utils/truncation.rs): only the longer one shortened while the shorter
// fits in half, otherwise both to half (the second gets the odd one); one text simply cut.
void truncate(std::vector<TokenPiece>& a, std::vector<TokenPiece>* b, std::int64_t maxLength,
              std::int64_t& dropped) {
  const auto limit = static_cast<size_t>(std::max<std::int64_t>(maxLength, 0));
  const size_t total = a.size() + (b != nullptr ? b->size() : 0);
  if (total <= limit) return;
  dropped = static_cast<std::int64_t>(total - limit);
  if (b == nullptr) {
    a.resize(limit);
    return;
  }
  size_t n1 = a.size();
  size_t n2 = b->size();
  const bool swapped = n1 > n2;
  if (swapped) std::swap(n1, n2);
  n2 = n1 > limit ? n1 : std::max(n1, limit - n1);
  if (n1 + n2 > limit) {
    n1 = limit / 2;
    n2 = n1 + limit % 2;
  }
  if (swapped) std::swap(n1, n2);
  a.resize(std::min(a.size(), n1));
  b->resize(std::min(b->size(), n2));
}

void append(TokenEncoding& encoding, const std::vector<TokenPiece>& pieces, std::int64_t typeId) {
  for (const TokenPiece& piece : pieces) {
    encoding.ids.push_back(piece.id);
    encoding.tokens.push_back(piece.piece);
    encoding.type_ids.push_back(typeId);
  }
}

}  // namespace

TextTokenizer::TextTokenizer(TokenizerParts parts) : m_parts(std::move(parts)) {
  if (!m_parts.model) throw std::invalid_argument("a tokenizer needs a subword model");
}

void TextTokenizer::appendWords(const std::u32string& text, std::vector<TokenPiece>& out) const {
  std::vector<std::u32string> words;
  if (m_parts.pre_tokenizer) {
    m_parts.pre_tokenizer->split(text, words);
  } else if (!text.empty()) {
    words.push_back(text);
  }
  for (const std::u32string& word : words) m_parts.model->tokenize(word, out);
}

std::vector<TokenPiece> TextTokenizer::pieces(const std::u32string& text) const {
  std::vector<TokenPiece> out;
  for (TextSegment& raw : m_parts.added_tokens.split(text, false)) {
    if (raw.token) {
      out.push_back(std::move(*raw.token));
      continue;
    }
    const std::u32string normalized =
        m_parts.normalizer ? m_parts.normalizer->normalize(std::move(raw.text)) : std::move(raw.text);
    for (TextSegment& segment : m_parts.added_tokens.split(normalized, true)) {
      if (segment.token) {
        out.push_back(std::move(*segment.token));
      } else {
        appendWords(segment.text, out);
      }
    }
  }
  return out;
}

std::vector<TokenPiece> TextTokenizer::tokenize(std::string_view text) const {
  return pieces(decodeUtf8(text));
}

TokenEncoding TextTokenizer::encode(std::string_view text, std::optional<std::string_view> pair,
                                    const EncodeOptions& options) const {
  std::vector<TokenPiece> a = pieces(decodeUtf8(text, "the text"));
  std::vector<TokenPiece> b;
  if (pair) b = pieces(decodeUtf8(*pair, "the second text"));
  TokenEncoding encoding;
  const bool isPair = pair.has_value();
  if (options.max_length) {
    const std::int64_t room =
        *options.max_length - (options.add_special_tokens ? m_parts.special_tokens.addedCount(isPair) : 0);
    truncate(a, isPair ? &b : nullptr, room, encoding.truncated);
  }
  const auto& pieces = isPair ? m_parts.special_tokens.pair : m_parts.special_tokens.single;
  if (pieces.empty()) {  // no template: the texts as they are, the second one type 1
    append(encoding, a, 0);
    append(encoding, b, 1);
    return encoding;
  }
  for (const TemplatePiece& piece : pieces) {
    switch (piece.kind) {
      case TemplatePiece::Kind::Special:
        if (options.add_special_tokens) append(encoding, piece.special, piece.type_id);
        break;
      case TemplatePiece::Kind::SequenceA:
        append(encoding, a, piece.type_id);
        break;
      case TemplatePiece::Kind::SequenceB:
        append(encoding, b, piece.type_id);
        break;
    }
  }
  return encoding;
}

std::int64_t TextTokenizer::vocabularySize() const {
  std::int64_t size = m_parts.model->vocabulary().size();
  for (const AddedToken& token : m_parts.added_tokens.tokens()) size = std::max(size, token.id + 1);
  return size;
}

std::optional<std::int64_t> TextTokenizer::tokenId(const std::string& piece) const {
  if (const AddedToken* added = m_parts.added_tokens.find(piece)) return added->id;
  return m_parts.model->vocabulary().find(piece);
}

}  // namespace wb::text
