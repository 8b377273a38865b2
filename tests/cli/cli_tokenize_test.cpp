// `workbench-cli tokenize`: a text's pieces and ids from a model folder's vocab.txt, a pair with its type ids
// and truncation said, texts from standard input as JSON, and a folder with no tokenizer refused (status 2).

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_runner.h"
#include "support/temporary_folder.h"

// A namespace of its own: the unity build puts this file beside others with helpers of the same names.
namespace cli_tokenize_test {
namespace {

using wb::test::runCli;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliTokenize, PrintsPiecesIdsTypeIdsAndWhatTruncationDropped) {
  wb::test::TemporaryFolder folder("tokenize");
  std::ofstream(folder.path() + "/vocab.txt") << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\n##s\n,\n";
  const auto one = runCli("tokenize " + folder.path() + " 'Hello, Worlds'");
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_TRUE(has(one.out, "WordPiece (lowercase, accents stripped), 9 ids")) << one.out;
  EXPECT_TRUE(has(one.out, "tokens:   [CLS] hello , world ##s [SEP]\nids:      2 5 8 6 7 3\n")) << one.out;
  const auto pair =
      runCli("tokenize " + folder.path() + " 'hello world hello' --pair 'world' --max-length 5");
  ASSERT_EQ(pair.status, 0) << pair.err;
  EXPECT_TRUE(has(pair.out, "tokens:   [CLS] hello [SEP] world [SEP]\n")) << pair.out;
  EXPECT_TRUE(has(pair.out, "type ids: 0 0 0 1 1\ntruncated: 2 tokens dropped to fit --max-length 5"))
      << pair.out;
  const auto lines =
      wb::test::runCliAfter("printf 'hello\\\\nworlds\\\\n' |", "tokenize " + folder.path() + " - --json");
  ASSERT_EQ(lines.status, 0) << lines.err;
  EXPECT_TRUE(has(lines.out, R"("ids":[2,5,3])")) << lines.out;
  EXPECT_TRUE(has(lines.out, R"("tokens":["[CLS]","world","##s","[SEP]"])")) << lines.out;
}

TEST(CliTokenize, AFolderWithoutATokenizerIsRefused) {
  wb::test::TemporaryFolder folder("tokenize-empty");
  const auto r = runCli("tokenize " + folder.path() + " hello");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(
      has(r.err, folder.path() + ": the folder has no tokenizer.json, vocab.txt or SentencePiece .model"))
      << r.err;
}

// A tokenizer learnt from a user's texts (SentencePiece through its module), then used; a file with too few
// texts for the size asked refused with SentencePiece's reason and nothing left behind.
TEST(CliTokenize, TrainTokenizerWritesASentencePieceModelThatTokenizeReads) {
  wb::test::TemporaryFolder folder("train-tokenizer");
  const std::string texts = folder.path() + "/texts.txt";
  ASSERT_EQ(std::system(("grep -h . /usr/share/common-licenses/GPL-3 > " + texts).c_str()), 0);
  const auto trained = runCli("train-tokenizer " + texts + " " + folder.path() + "/tok --vocab-size 400");
  ASSERT_EQ(trained.status, 0) << trained.err;
  EXPECT_TRUE(has(trained.out, "wrote " + folder.path() + "/tok/tokenizer.model (400 pieces, unigram)"))
      << trained.out;
  const auto read = runCli("tokenize " + folder.path() + "/tok 'free software'");
  ASSERT_EQ(read.status, 0) << read.err;
  EXPECT_TRUE(has(read.out, "SentencePiece, 400 ids")) << read.out;
  EXPECT_TRUE(has(read.out, "tokens:   ▁free ▁software")) << read.out;
  std::ofstream(folder.path() + "/two.txt") << "one text\nanother\n";
  const auto refused = runCli("train-tokenizer " + folder.path() + "/two.txt " + folder.path() + "/none");
  EXPECT_EQ(refused.status, 2);
  EXPECT_TRUE(has(refused.err, "SentencePiece could not train: ")) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(folder.path() + "/none"));
}

}  // namespace
}  // namespace cli_tokenize_test
