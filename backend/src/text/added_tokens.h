#pragma once
// The tokens a tokenizer matches in the text before anything else (tokenizer.json's added_tokens: BERT's
// [CLS], [SEP], [MASK] ... and a user's own), as Hugging Face's AddedVocabulary does: leftmost-longest
// matches, those marked `normalized` in the normalized text and the others in the raw text; `single_word`
// only between non-word characters; `lstrip`/`rstrip` take the whitespace beside them.

#include <optional>
#include <string>
#include <vector>

#include "text/subword_model.h"

namespace wb::text {

struct AddedToken {
  std::u32string content;
  std::int64_t id = 0;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  bool special = false;
};

// A stretch of the text: an added token (with what it matched) or text left for the other stages.
struct TextSegment {
  std::u32string text;
  std::optional<TokenPiece> token;
};

class AddedTokens {
 public:
  void add(AddedToken token) { m_tokens.push_back(std::move(token)); }
  const std::vector<AddedToken>& tokens() const { return m_tokens; }
  const AddedToken* find(const std::string& content) const;
  // `text` cut at the added tokens whose `normalized` flag equals `normalized`.
  std::vector<TextSegment> split(const std::u32string& text, bool normalized) const;

 private:
  // The longest token of that kind starting at `at`, or null.
  const AddedToken* longestAt(const std::u32string& text, size_t at, bool normalized) const;

  std::vector<AddedToken> m_tokens;
};

}  // namespace wb::text
