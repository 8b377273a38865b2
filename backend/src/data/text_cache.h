#pragma once
// A text file tokenized once and kept: the tokens of (the file's contents, the tokenizer's files, the
// columns, max_length, the bad-rows policy) are written to the user's cache (data/user_cache.h, under texts/)
// and read back by every later run with the same inputs, so a second run starts without tokenizing. The key
// is made from the contents, not the names or dates: an edited file or tokenizer is tokenized again, a copied
// one is not. The cache is written atomically; a damaged or foreign file there is ignored and written anew.

#include <filesystem>
#include <memory>
#include <string>

#include "data/tokenized_texts.h"

namespace wb {

struct TokenizedTextFile {
  std::shared_ptr<const TokenizedTexts> texts;
  std::string cache_file;  // "" when there is no cache folder
  bool from_cache = false;
};

// `data`: a CSV/TSV/JSONL file or a folder of class subfolders (text/text_records.h); `tokenizer`: a model
// folder or a tokenizer file (text/tokenizer_files.h). DataError as tokenizeTexts and openTextRecords give.
TokenizedTextFile tokenizeTextFile(const std::filesystem::path& data, const text::TextColumns& columns,
                                   const std::filesystem::path& tokenizer, const TextTokenizing& options);

// The cache file's bytes for `texts` and back (nullptr for bytes that are not such a file).
std::string serializeTokenizedTexts(const TokenizedTexts& texts);
std::shared_ptr<TokenizedTexts> deserializeTokenizedTexts(const std::string& bytes);

}  // namespace wb
