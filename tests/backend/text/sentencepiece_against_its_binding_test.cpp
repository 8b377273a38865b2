// SentencePiece .model tokenizers against SentencePiece's own Python binding (Debian's python3-sentencepiece,
// tests/python/sentencepiece_reference.py), id for id and piece for piece, both ways: unigram and BPE models
// the binding trained on Debian's coreutils catalogs, read here; and one trained here (`trainTokenizer`, what
// `workbench-cli train-tokenizer` runs), read there. Loading SentencePiece in its own namespace (dlmopen) is
// what these exercise too.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "support/command_output.h"
#include "support/temporary_folder.h"
#include "text/tokenizer_files.h"
#include "workbench/errors.h"
#include "workbench/tokenizer_training.h"

namespace sentencepiece_against_its_binding_test {
namespace {

using nlohmann::json;

std::string run(const std::string& arguments) {
  return wb::test::failureOf(std::string(WB_SENTENCEPIECE_PYTHON) + " " + WB_SOURCE_DIR +
                             "/tests/python/sentencepiece_reference.py " + arguments + " 2>&1");
}

// How many of the file's encodings our tokenizers give otherwise (the first few reported).
int differing(const std::string& cases, const std::map<std::string, std::string>& models, int& compared) {
  std::map<std::string, std::unique_ptr<wb::text::TextTokenizer>> loaded;
  int different = 0;
  std::ifstream in(cases);
  for (std::string line; std::getline(in, line);) {
    const json c = json::parse(line);
    auto& tokenizer = loaded[c["tokenizer"]];
    if (!tokenizer) tokenizer = wb::text::loadTokenizer(models.at(c["tokenizer"]));
    const wb::text::TokenEncoding ours = tokenizer->encode(c["text"].get<std::string>());
    ++compared;
    if (ours.ids != c["ids"].get<std::vector<std::int64_t>>() ||
        ours.tokens != c["tokens"].get<std::vector<std::string>>()) {
      if (++different <= 5) ADD_FAILURE() << c.dump() << "\n  ours: " << json(ours.tokens).dump();
    }
  }
  return different;
}

TEST(SentencePieceAgainstItsBinding, ModelsTheBindingTrainedGiveItsIdsHere) {
  wb::test::TemporaryFolder folder("sentencepiece");
  const std::string dir = folder.path();
  ASSERT_EQ(run("train " + dir), "");
  int compared = 0;
  EXPECT_EQ(differing(dir + "/cases.jsonl",
                      {{"unigram", dir + "/unigram.model"}, {"bpe", dir + "/bpe.model"}}, compared),
            0);
  EXPECT_GT(compared, 2000);
  EXPECT_EQ(wb::text::loadTokenizer(dir + "/bpe.model")->description(), "SentencePiece");
}

TEST(SentencePieceAgainstItsBinding, AModelTrainedHereGivesTheSameIdsThere) {
  wb::test::TemporaryFolder folder("sentencepiece-ours");
  const std::string dir = folder.path();
  ASSERT_EQ(run("train " + dir), "");
  const wb::TokenizerTrainingResult trained =
      wb::trainTokenizer({dir + "/corpus.txt", dir + "/ours", 1500, wb::TokenizerAlgorithm::Unigram});
  EXPECT_EQ(trained.model_file, dir + "/ours/tokenizer.model");
  EXPECT_EQ(trained.vocabulary_size, 1500);
  ASSERT_EQ(run("encode " + trained.model_file + " " + dir + "/texts.json " + dir + "/ours.jsonl"), "");
  int compared = 0;
  EXPECT_EQ(differing(dir + "/ours.jsonl", {{"ours", trained.model_file}}, compared), 0);
  EXPECT_GT(compared, 1000);
}

TEST(SentencePieceAgainstItsBinding, ATrainingSentencePieceRefusesLeavesNothingBehind) {
  wb::test::TemporaryFolder folder("sentencepiece-refused");
  const std::string dir = folder.path();
  std::ofstream(dir + "/few.txt") << "one short text\nand another\n";
  std::string message;
  try {
    wb::trainTokenizer({dir + "/few.txt", dir + "/out", 5000, wb::TokenizerAlgorithm::Bpe});
  } catch (const wb::DataError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("SentencePiece could not train: "), std::string::npos) << message;
  EXPECT_NE(message.find("Vocabulary size too high (5000)"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
  std::ofstream(dir + "/junk.model") << "not a model";
  message.clear();
  try {
    wb::text::loadTokenizer(dir + "/junk.model");
  } catch (const wb::DataError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find(dir + "/junk.model: SentencePiece cannot read it"), std::string::npos) << message;
}

}  // namespace
}  // namespace sentencepiece_against_its_binding_test
