#pragma once
// A text as a model's tokenizer sees it — pieces, ids, type ids — for `workbench-cli tokenize` and the
// window's text previews. The tokenizer is a Hugging Face model folder, its tokenizer.json, or BERT's
// vocab.txt.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wb {

struct TokenPreview {
  std::string tokenizer;  // what it is, e.g. "WordPiece (lowercase, accents stripped)"
  std::int64_t vocabulary_size = 0;
  std::vector<std::string> tokens;
  std::vector<std::int64_t> ids;
  std::vector<std::int64_t> type_ids;
  std::int64_t truncated = 0;  // tokens dropped to fit max_length
};

struct TokenPreviewRequest {
  std::string tokenizer_path;
  std::string text;                 // UTF-8
  std::optional<std::string> pair;  // a second text (sentence pairs)
  std::optional<std::int64_t> max_length;
  bool add_special_tokens = true;
};

// DataError (workbench/errors.h) naming the file, or the text's byte, that is wrong.
TokenPreview previewTokens(const TokenPreviewRequest& request);

}  // namespace wb
