#include "workbench/token_preview.h"

#include "text/tokenizer_files.h"

namespace wb {

TokenPreview previewTokens(const TokenPreviewRequest& request) {
  const auto tokenizer = text::loadTokenizer(request.tokenizer_path);
  text::EncodeOptions options;
  options.max_length = request.max_length;
  options.add_special_tokens = request.add_special_tokens;
  text::TokenEncoding encoding = tokenizer->encode(
      request.text, request.pair ? std::optional<std::string_view>(*request.pair) : std::nullopt, options);
  TokenPreview preview;
  preview.tokenizer = tokenizer->description();
  preview.vocabulary_size = tokenizer->vocabularySize();
  preview.tokens = std::move(encoding.tokens);
  preview.ids = std::move(encoding.ids);
  preview.type_ids = std::move(encoding.type_ids);
  preview.truncated = encoding.truncated;
  return preview;
}

}  // namespace wb
