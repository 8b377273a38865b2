// BERT's vocab.txt and the tokenizer_config.json beside it, made into the tokenizer transformers'
// BertTokenizerFast makes of them (BertNormalizer, BertPreTokenizer, WordPiece, [CLS] $A [SEP]).
#include <fstream>
#include <nlohmann/json.hpp>

#include "text/bert_normalizer.h"
#include "text/bert_pre_tokenizer.h"
#include "text/tokenizer_files.h"
#include "text/unicode_chars.h"
#include "text/wordpiece_model.h"
#include "workbench/errors.h"

namespace wb::text {
namespace {

using nlohmann::json;

struct BertVocabConfig {
  BertNormalizerOptions normalizer;
  std::string unk = "[UNK]", sep = "[SEP]", cls = "[CLS]", pad = "[PAD]", mask = "[MASK]";
};

// A special token in tokenizer_config.json is a string or {"content": ...}.
void readToken(const json& config, const char* key, std::string& token) {
  if (!config.contains(key)) return;
  const json& value = config[key];
  if (value.is_string()) token = value.get<std::string>();
  if (value.is_object() && value.contains("content")) token = value["content"].get<std::string>();
}

BertVocabConfig readConfig(const std::filesystem::path& folder) {
  BertVocabConfig config;
  const std::filesystem::path file = folder / "tokenizer_config.json";
  std::ifstream in(file, std::ios::binary);
  if (!in) return config;
  try {
    const json document = json::parse(in);
    config.normalizer.lowercase = document.value("do_lower_case", true);
    config.normalizer.handle_chinese_chars = document.value("tokenize_chinese_chars", true);
    if (document.contains("strip_accents") && !document["strip_accents"].is_null()) {
      config.normalizer.strip_accents = document["strip_accents"].get<bool>();
    }
    readToken(document, "unk_token", config.unk);
    readToken(document, "sep_token", config.sep);
    readToken(document, "cls_token", config.cls);
    readToken(document, "pad_token", config.pad);
    readToken(document, "mask_token", config.mask);
  } catch (const json::exception& e) {
    throw DataError(file.string() + ": not a tokenizer configuration (" + e.what() + ")");
  }
  return config;
}

TokenVocabulary readVocabulary(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file.string() + ": cannot be read", "check that the file exists and is readable");
  TokenVocabulary vocabulary;
  std::string line;
  std::int64_t id = 0;
  try {
    for (; std::getline(in, line); ++id) {
      // Trailing whitespace is not part of a piece (Rust's trim_end, as tokenizers reads the file).
      std::u32string piece = decodeUtf8(line, "line " + std::to_string(id + 1));
      while (!piece.empty() && isWhiteSpace(piece.back())) piece.pop_back();
      vocabulary.add(encodeUtf8(piece), id);
    }
  } catch (const std::invalid_argument& e) {
    throw DataError(file.string() + ", line " + std::to_string(id + 1) + ": " + e.what());
  } catch (const DataError& e) {
    throw DataError(file.string() + ": " + e.what(), e.hint());
  }
  if (id == 0) throw DataError(file.string() + ": the vocabulary is empty");
  return vocabulary;
}

}  // namespace

std::unique_ptr<TextTokenizer> readBertVocabFile(const std::filesystem::path& file) {
  const BertVocabConfig config = readConfig(file.parent_path());
  TokenVocabulary vocabulary = readVocabulary(file);
  TokenizerParts parts;
  for (const std::string* special : {&config.unk, &config.sep, &config.cls, &config.pad, &config.mask}) {
    if (const auto id = vocabulary.find(*special)) {
      parts.added_tokens.add({decodeUtf8(*special), *id, false, false, false, false, true});
    }
  }
  const auto cls = vocabulary.find(config.cls);
  const auto sep = vocabulary.find(config.sep);
  if (!cls || !sep) {
    throw DataError(file.string() + ": the vocabulary has no " + (cls ? config.sep : config.cls) +
                    ", which BERT puts around every text");
  }
  using Kind = TemplatePiece::Kind;
  parts.special_tokens.single = {{Kind::Special, {{*cls, config.cls}}, 0},
                                 {Kind::SequenceA, {}, 0},
                                 {Kind::Special, {{*sep, config.sep}}, 0}};
  parts.special_tokens.pair = parts.special_tokens.single;
  parts.special_tokens.pair.push_back({Kind::SequenceB, {}, 1});
  parts.special_tokens.pair.push_back({Kind::Special, {{*sep, config.sep}}, 1});
  const bool strip = config.normalizer.strip_accents.value_or(config.normalizer.lowercase);
  parts.description = std::string("WordPiece (") + (config.normalizer.lowercase ? "lowercase" : "cased") +
                      (strip ? ", accents stripped)" : ")");
  parts.normalizer = std::make_unique<BertNormalizer>(config.normalizer);
  parts.pre_tokenizer = std::make_unique<BertPreTokenizer>();
  try {
    parts.model = std::make_unique<WordPieceModel>(std::move(vocabulary), WordPieceOptions{config.unk});
  } catch (const std::invalid_argument& e) {
    throw DataError(file.string() + ": " + e.what());
  }
  return std::make_unique<TextTokenizer>(std::move(parts));
}

}  // namespace wb::text
