#pragma once
// A tokenizer from the files people have: a Hugging Face tokenizer.json, or BERT's vocab.txt (with the
// folder's tokenizer_config.json for its casing). DataError naming the file and the key for what is damaged
// or not a kind this workbench reads.

#include <filesystem>
#include <memory>
#include <vector>

#include "text/text_tokenizer.h"

namespace wb::text {

std::unique_ptr<TextTokenizer> readTokenizerJson(const std::filesystem::path& file);
// vocab.txt as transformers' BertTokenizerFast reads it: line n is id n; do_lower_case, strip_accents and
// tokenize_chinese_chars from tokenizer_config.json beside it, BERT's defaults without one.
std::unique_ptr<TextTokenizer> readBertVocabFile(const std::filesystem::path& file);
// A model folder (its tokenizer.json, else its vocab.txt, else its SentencePiece .model: spiece.model,
// sentencepiece.bpe.model, tokenizer.model) or one of those files (load_tokenizer.cpp).
std::unique_ptr<TextTokenizer> loadTokenizer(const std::filesystem::path& path);
// The files loadTokenizer reads for `path` (what a cache of tokenized texts is keyed by).
std::vector<std::filesystem::path> tokenizerSourceFiles(const std::filesystem::path& path);

}  // namespace wb::text
