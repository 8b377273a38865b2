// Our tokenizers against Hugging Face's own (tokenizers from PyPI, tests/python/tokenizer_reference.py), id
// for id, token for token, type id for type id: WordPiece tokenizers trained there on Debian's translation
// catalogs (coreutils' messages and iso-codes' country names in fourteen languages, half of them unseen),
// uncased, cased, cased with accents stripped, with BertProcessing, and from their vocab.txt as BERT ships
// it; single texts, pairs, truncation to 16, 9, 7 and 24 tokens, without special tokens.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "support/command_output.h"
#include "support/pypi_tools.h"
#include "support/temporary_folder.h"
#include "text/tokenizer_files.h"

namespace wb::text {
namespace {

using nlohmann::json;

std::string runReference(const std::string& folder) {
  return test::failureOf(test::pypiToolCommand("tokenizer_reference.py") + " " + folder + " 2>&1");
}

const TextTokenizer& tokenizerFor(const std::string& folder, const std::string& name,
                                  std::map<std::string, std::unique_ptr<TextTokenizer>>& loaded) {
  auto& tokenizer = loaded[name];
  if (!tokenizer) {
    const auto slash = name.find('/');
    tokenizer = slash == std::string::npos ? loadTokenizer(folder + "/" + name + "/tokenizer.json")
                                           : loadTokenizer(folder + "/" + name);  // "<name>/vocab.txt"
  }
  return *tokenizer;
}

TokenEncoding encodeCase(const TextTokenizer& tokenizer, const json& c) {
  EncodeOptions options;
  if (!c["max_length"].is_null()) options.max_length = c["max_length"].get<std::int64_t>();
  options.add_special_tokens = c["add_special_tokens"].get<bool>();
  std::optional<std::string> pair;
  if (!c["pair"].is_null()) pair = c["pair"].get<std::string>();
  return tokenizer.encode(c["text"].get<std::string>(), pair, options);
}

TEST(TokenizerAgainstHuggingFace, EveryEncodingOfTheCatalogsHasTheirIdsTokensAndTypeIds) {
  ASSERT_PYPI_TOOLS();
  test::TemporaryFolder folder("tokenizers");
  const std::string failed = runReference(folder.path());
  ASSERT_EQ(failed, "") << "tokenizer_reference.py failed";
  std::ifstream cases(folder.path() + "/cases.jsonl");
  std::map<std::string, std::unique_ptr<TextTokenizer>> loaded;
  std::map<std::string, int> compared;
  int differing = 0;
  std::string line;
  while (std::getline(cases, line)) {
    const json c = json::parse(line);
    const std::string name = c["tokenizer"].get<std::string>();
    const TokenEncoding ours = encodeCase(tokenizerFor(folder.path(), name, loaded), c);
    ++compared[name];
    const bool same = ours.ids == c["ids"].get<std::vector<std::int64_t>>() &&
                      ours.tokens == c["tokens"].get<std::vector<std::string>>() &&
                      ours.type_ids == c["type_ids"].get<std::vector<std::int64_t>>();
    if (!same && ++differing <= 5) {
      ADD_FAILURE() << name << " differs from tokenizers on " << c.dump() << "\n  ours: "
                    << json{{"ids", ours.ids}, {"tokens", ours.tokens}, {"type_ids", ours.type_ids}}.dump();
    }
  }
  EXPECT_EQ(differing, 0) << "encodings differing from Hugging Face's tokenizers";
  // Every tokenizer the script writes was compared, on many texts.
  for (const char* name :
       {"uncased", "cased", "cased_stripped", "bert_processing", "uncased/vocab.txt", "cased/vocab.txt"}) {
    EXPECT_GT(compared[name], 1000) << name;
  }
}

}  // namespace
}  // namespace wb::text
