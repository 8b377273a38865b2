// tokenizer.json (Hugging Face's tokenizers' own file): its model, normalizer, pre-tokenizer, post-processor
// and added tokens.
#include <fstream>
#include <nlohmann/json.hpp>

#include "text/bert_normalizer.h"
#include "text/bert_pre_tokenizer.h"
#include "text/bpe_model.h"
#include "text/byte_level_pre_tokenizer.h"
#include "text/tokenizer_files.h"
#include "text/unicode_chars.h"
#include "text/wordpiece_model.h"
#include "workbench/errors.h"

namespace wb::text {
namespace {

using nlohmann::json;

[[noreturn]] void refuse(const std::filesystem::path& file, const std::string& what,
                         const std::string& hint = {}) {
  throw DataError(file.string() + ": " + what, hint);
}

std::string typeOf(const json& part) {
  return part.is_object() ? part.value("type", std::string("?")) : "?";
}

const char* kReads =
    "this workbench reads WordPiece (BERT's) and byte-level BPE (GPT-2's, RoBERTa's) tokenizer.json files";

std::unique_ptr<TextNormalizer> normalizerOf(const std::filesystem::path& file, const json& part) {
  if (part.is_null()) return nullptr;
  if (typeOf(part) != "BertNormalizer") refuse(file, "its normalizer is " + typeOf(part) + ": " + kReads);
  BertNormalizerOptions options;
  options.clean_text = part.value("clean_text", true);
  options.handle_chinese_chars = part.value("handle_chinese_chars", true);
  if (part.contains("strip_accents") && !part["strip_accents"].is_null()) {
    options.strip_accents = part["strip_accents"].get<bool>();
  }
  options.lowercase = part.value("lowercase", true);
  return std::make_unique<BertNormalizer>(options);
}

std::unique_ptr<PreTokenizer> preTokenizerOf(const std::filesystem::path& file, const json& part) {
  if (part.is_null()) return nullptr;
  if (typeOf(part) == "BertPreTokenizer") return std::make_unique<BertPreTokenizer>();
  if (typeOf(part) == "ByteLevel") {
    return std::make_unique<ByteLevelPreTokenizer>(
        ByteLevelOptions{part.value("add_prefix_space", false), part.value("use_regex", true)});
  }
  refuse(file, "its pre_tokenizer is " + typeOf(part) + ": " + kReads);
}

// tokenizer.json writes a merge as "a b" (older files) or ["a", "b"].
std::vector<std::pair<std::string, std::string>> mergesOf(const std::filesystem::path& file,
                                                          const json& list) {
  std::vector<std::pair<std::string, std::string>> merges;
  for (const json& merge : list) {
    if (merge.is_array() && merge.size() == 2) {
      merges.emplace_back(merge[0].get<std::string>(), merge[1].get<std::string>());
      continue;
    }
    const std::string text = merge.get<std::string>();
    const auto space = text.find(' ', 1);
    if (space == std::string::npos) refuse(file, "its model's merge '" + text + "' is not two pieces");
    merges.emplace_back(text.substr(0, space), text.substr(space + 1));
  }
  return merges;
}

std::optional<std::string> optionalString(const json& part, const char* key) {
  if (part.contains(key) && part[key].is_string()) return part[key].get<std::string>();
  return std::nullopt;
}

std::unique_ptr<SubwordModel> bpeModelOf(const std::filesystem::path& file, const json& part,
                                         TokenVocabulary vocabulary) {
  if (part.value("byte_fallback", false))
    refuse(file, "its BPE model falls back to bytes (byte_fallback): " + std::string(kReads));
  if (part.contains("dropout") && !part["dropout"].is_null() && part["dropout"].get<double>() > 0) {
    refuse(file, "its BPE model has dropout, which makes its ids random", "set \"dropout\" to null");
  }
  BpeOptions options;
  options.unk_token = optionalString(part, "unk_token");
  options.fuse_unk = part.value("fuse_unk", false);
  options.ignore_merges = part.value("ignore_merges", false);
  options.continuing_subword_prefix = optionalString(part, "continuing_subword_prefix").value_or("");
  options.end_of_word_suffix = optionalString(part, "end_of_word_suffix").value_or("");
  return std::make_unique<BpeModel>(std::move(vocabulary),
                                    mergesOf(file, part.value("merges", json::array())), std::move(options));
}

std::unique_ptr<SubwordModel> modelOf(const std::filesystem::path& file, const json& part) {
  const std::string type = typeOf(part);
  if (type != "WordPiece" && type != "BPE") refuse(file, "its model is " + type + ": " + kReads);
  if (!part.contains("vocab") || !part["vocab"].is_object()) refuse(file, "its model has no vocab");
  TokenVocabulary vocabulary;
  for (const auto& [piece, id] : part["vocab"].items()) vocabulary.add(piece, id.get<std::int64_t>());
  if (type == "BPE") return bpeModelOf(file, part, std::move(vocabulary));
  WordPieceOptions options;
  options.unk_token = part.value("unk_token", options.unk_token);
  options.continuing_subword_prefix =
      part.value("continuing_subword_prefix", options.continuing_subword_prefix);
  options.max_input_chars_per_word = part.value("max_input_chars_per_word", options.max_input_chars_per_word);
  return std::make_unique<WordPieceModel>(std::move(vocabulary), std::move(options));
}

AddedTokens addedTokensOf(const json& list) {
  AddedTokens tokens;
  if (!list.is_array()) return tokens;
  for (const json& entry : list) {
    AddedToken token;
    token.content = decodeUtf8(entry.at("content").get<std::string>(), "an added token");
    token.id = entry.at("id").get<std::int64_t>();
    token.single_word = entry.value("single_word", false);
    token.lstrip = entry.value("lstrip", false);
    token.rstrip = entry.value("rstrip", false);
    token.normalized = entry.value("normalized", true);
    token.special = entry.value("special", false);
    tokens.add(std::move(token));
  }
  return tokens;
}

std::vector<TemplatePiece> templateOf(const json& items, const json& specials) {
  std::vector<TemplatePiece> pieces;
  for (const json& item : items) {
    TemplatePiece piece;
    if (item.contains("SpecialToken")) {
      const json& special = item["SpecialToken"];
      piece.kind = TemplatePiece::Kind::Special;
      piece.type_id = special.value("type_id", 0);
      const json& known = specials.at(special.at("id").get<std::string>());
      const auto ids = known.at("ids").get<std::vector<std::int64_t>>();
      const auto texts = known.at("tokens").get<std::vector<std::string>>();
      for (size_t i = 0; i < ids.size() && i < texts.size(); ++i) piece.special.push_back({ids[i], texts[i]});
    } else {
      const json& sequence = item.at("Sequence");
      piece.kind = sequence.at("id").get<std::string>() == "A" ? TemplatePiece::Kind::SequenceA
                                                               : TemplatePiece::Kind::SequenceB;
      piece.type_id = sequence.value("type_id", 0);
    }
    pieces.push_back(std::move(piece));
  }
  return pieces;
}

// BertProcessing is the template [CLS] $A [SEP] / [CLS] $A [SEP] $B:1 [SEP]:1.
SpecialTokensTemplate bertTemplate(const TokenPiece& cls, const TokenPiece& sep) {
  using Kind = TemplatePiece::Kind;
  SpecialTokensTemplate result;
  result.single = {{Kind::Special, {cls}, 0}, {Kind::SequenceA, {}, 0}, {Kind::Special, {sep}, 0}};
  result.pair = result.single;
  result.pair.push_back({Kind::SequenceB, {}, 1});
  result.pair.push_back({Kind::Special, {sep}, 1});
  return result;
}

// RobertaProcessing: <s> $A </s> and <s> $A </s> </s> $B </s>, every type id 0.
SpecialTokensTemplate robertaTemplate(const TokenPiece& cls, const TokenPiece& sep) {
  using Kind = TemplatePiece::Kind;
  SpecialTokensTemplate result;
  result.single = {{Kind::Special, {cls}, 0}, {Kind::SequenceA, {}, 0}, {Kind::Special, {sep}, 0}};
  result.pair = result.single;
  result.pair.push_back({Kind::Special, {sep}, 0});
  result.pair.push_back({Kind::SequenceB, {}, 0});
  result.pair.push_back({Kind::Special, {sep}, 0});
  return result;
}

SpecialTokensTemplate postProcessorOf(const std::filesystem::path& file, const json& part) {
  if (part.is_null()) return {};
  const std::string type = typeOf(part);
  if (type == "TemplateProcessing") {
    const json& specials = part.value("special_tokens", json::object());
    return {templateOf(part.at("single"), specials), templateOf(part.at("pair"), specials)};
  }
  const auto piece = [&](const char* key) {
    return TokenPiece{part.at(key).at(1).get<std::int64_t>(), part.at(key).at(0).get<std::string>()};
  };
  if (type == "BertProcessing") return bertTemplate(piece("cls"), piece("sep"));
  if (type == "RobertaProcessing") return robertaTemplate(piece("cls"), piece("sep"));
  if (type == "ByteLevel") return {};  // it only trims offsets
  refuse(file, "its post_processor is " + type + ": " + kReads);
}

std::string describe(const json& model, const json& preTokenizer, const json& normalizer) {
  if (typeOf(model) == "BPE") return typeOf(preTokenizer) == "ByteLevel" ? "byte-level BPE" : "BPE";
  if (normalizer.is_null()) return "WordPiece";
  const bool lower = normalizer.value("lowercase", true);
  const bool strip = normalizer.contains("strip_accents") && !normalizer["strip_accents"].is_null()
                         ? normalizer["strip_accents"].get<bool>()
                         : lower;
  return std::string("WordPiece (") + (lower ? "lowercase" : "cased") + (strip ? ", accents stripped)" : ")");
}

}  // namespace

std::unique_ptr<TextTokenizer> readTokenizerJson(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) refuse(file, "cannot be read", "check that the file exists and is readable");
  json document;
  try {
    document = json::parse(in);
    TokenizerParts parts;
    parts.model = modelOf(file, document.value("model", json()));
    parts.normalizer = normalizerOf(file, document.value("normalizer", json()));
    parts.pre_tokenizer = preTokenizerOf(file, document.value("pre_tokenizer", json()));
    parts.added_tokens = addedTokensOf(document.value("added_tokens", json()));
    parts.special_tokens = postProcessorOf(file, document.value("post_processor", json()));
    parts.description = describe(document.value("model", json()), document.value("pre_tokenizer", json()),
                                 document.value("normalizer", json()));
    return std::make_unique<TextTokenizer>(std::move(parts));
  } catch (const json::exception& e) {
    refuse(file,
           std::string("is not a tokenizer.json as Hugging Face's tokenizers writes it (") + e.what() + ")");
  } catch (const std::invalid_argument& e) {
    refuse(file, e.what());
  }
}

}  // namespace wb::text
