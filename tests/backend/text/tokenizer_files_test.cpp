// Tokenizer files read, and the bad ones refused with the file, line or byte named: a tokenizer of a kind not
// read yet, a damaged tokenizer.json, a vocab.txt without BERT's [CLS] or with a piece twice, a folder with
// no tokenizer, a text that is not UTF-8. And what truncation reports it dropped.

#include "text/tokenizer_files.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/temporary_folder.h"
#include "workbench/errors.h"
#include "workbench/token_preview.h"

namespace tokenizer_files_test {
namespace {

using wb::DataError;
using wb::text::loadTokenizer;

void write(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

const char* kVocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nhello\nworld\n##s\n,\n!\nthe\n";

// The message of the DataError `load` throws, or "" when it throws none.
template <typename Load>
std::string refusal(Load load) {
  try {
    load();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(TokenizerFiles, AVocabTxtEncodesAsBert) {
  wb::test::TemporaryFolder folder("vocab");
  write(folder.path() + "/vocab.txt", kVocab);
  const auto tokenizer = loadTokenizer(folder.path());
  const auto encoding = tokenizer->encode("Hello, WORLDS!", std::string_view("the [MASK]"));
  EXPECT_EQ(encoding.tokens, (std::vector<std::string>{"[CLS]", "hello", ",", "world", "##s", "!", "[SEP]",
                                                       "the", "[MASK]", "[SEP]"}));
  EXPECT_EQ(encoding.ids, (std::vector<std::int64_t>{2, 5, 8, 6, 7, 9, 3, 10, 4, 3}));
  EXPECT_EQ(encoding.type_ids, (std::vector<std::int64_t>{0, 0, 0, 0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(tokenizer->vocabularySize(), 11);
}

TEST(TokenizerFiles, TruncationSaysHowManyTokensItDropped) {
  wb::test::TemporaryFolder folder("vocab");
  write(folder.path() + "/vocab.txt", kVocab);
  const wb::TokenPreview preview =
      wb::previewTokens({folder.path(), "hello world hello world the", {}, 4, true});
  EXPECT_EQ(preview.tokens, (std::vector<std::string>{"[CLS]", "hello", "world", "[SEP]"}));
  EXPECT_EQ(preview.truncated, 3);
  const wb::TokenPreview whole = wb::previewTokens({folder.path(), "hello world", {}, 4, true});
  EXPECT_EQ(whole.truncated, 0);
}

TEST(TokenizerFiles, BadFilesAndTextsAreRefusedNamingWhatIsWrong) {
  wb::test::TemporaryFolder folder("bad-tokenizers");
  const std::string dir = folder.path();
  write(dir + "/unigram.json", R"({"model": {"type": "Unigram", "vocab": []}})");
  EXPECT_TRUE(has(refusal([&] { loadTokenizer(dir + "/unigram.json"); }),
                  dir + "/unigram.json: its model is Unigram"));
  write(dir + "/merge.json",
        R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": [["a", "b"]]}})");
  EXPECT_TRUE(has(refusal([&] { loadTokenizer(dir + "/merge.json"); }),
                  "merge.json: the merge 'a b' (rank 0) makes 'ab', which the vocabulary lacks"));
  write(dir + "/cut.json", R"({"model": {"type": "WordPie)");
  EXPECT_TRUE(has(refusal([&] { loadTokenizer(dir + "/cut.json"); }), "cut.json: is not a tokenizer.json"));
  write(dir + "/no_cls.txt", "[PAD]\n[UNK]\n[SEP]\nhello\n");
  EXPECT_TRUE(
      has(refusal([&] { loadTokenizer(dir + "/no_cls.txt"); }), "no_cls.txt: the vocabulary has no [CLS]"));
  write(dir + "/twice.txt", "[UNK]\n[CLS]\n[SEP]\nhello\nhello\n");
  EXPECT_TRUE(
      has(refusal([&] { loadTokenizer(dir + "/twice.txt"); }), "twice.txt, line 5: the piece 'hello'"));
  write(dir + "/latin1.txt", "[UNK]\n[CLS]\n[SEP]\ncaf\xe9\n");
  EXPECT_TRUE(has(refusal([&] { loadTokenizer(dir + "/latin1.txt"); }), "latin1.txt: line 4 is not UTF-8"));
  EXPECT_TRUE(
      has(refusal([&] { loadTokenizer(dir); }), "has no tokenizer.json, vocab.txt or SentencePiece .model"));
  write(dir + "/vocab.txt", kVocab);
  const auto tokenizer = loadTokenizer(dir + "/vocab.txt");
  EXPECT_EQ(refusal([&] { tokenizer->encode("caf\xe9 au lait"); }), "the text is not UTF-8 (byte 3)");
  EXPECT_EQ(refusal([&] { tokenizer->encode("fine", std::string_view("\xff")); }),
            "the second text is not UTF-8 (byte 0)");
}

}  // namespace
}  // namespace tokenizer_files_test
