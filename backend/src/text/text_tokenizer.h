#pragma once
// A text into token ids, as Hugging Face's tokenizers encodes it: added tokens found first, the rest
// normalized, split into words and each word into subword pieces; the pair truncated longest-first to
// max_length (room kept for the special tokens), then the template's special tokens and type ids. Made from a
// tokenizer.json or a vocab.txt (tokenizer_files.h). Const and thread-safe: the loader's workers share one.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "text/added_tokens.h"
#include "text/pre_tokenizer.h"
#include "text/special_tokens_template.h"
#include "text/subword_model.h"
#include "text/text_normalizer.h"

namespace wb::text {

struct EncodeOptions {
  std::optional<std::int64_t> max_length;  // unset: no truncation
  bool add_special_tokens = true;
};

struct TokenEncoding {
  std::vector<std::int64_t> ids;
  std::vector<std::string> tokens;
  std::vector<std::int64_t> type_ids;
  std::int64_t truncated = 0;  // tokens truncation dropped
};

struct TokenizerParts {
  std::unique_ptr<TextNormalizer> normalizer;  // may be null: the text as it is
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  std::unique_ptr<SubwordModel> model;
  AddedTokens added_tokens;
  SpecialTokensTemplate special_tokens;
  std::string description;  // e.g. "WordPiece (lowercase, accents stripped)"
};

class TextTokenizer {
 public:
  explicit TextTokenizer(TokenizerParts parts);

  // UTF-8 texts; DataError where one is not UTF-8.
  TokenEncoding encode(std::string_view text, std::optional<std::string_view> pair = std::nullopt,
                       const EncodeOptions& options = {}) const;
  // The pieces of one text, no special tokens, no truncation.
  std::vector<TokenPiece> tokenize(std::string_view text) const;

  // The rows an embedding needs: every id the model or an added token can give.
  std::int64_t vocabularySize() const;
  std::optional<std::int64_t> tokenId(const std::string& piece) const;
  const std::string& description() const { return m_parts.description; }

 private:
  std::vector<TokenPiece> pieces(const std::u32string& text) const;
  void appendWords(const std::u32string& text, std::vector<TokenPiece>& out) const;

  TokenizerParts m_parts;
};

}  // namespace wb::text
