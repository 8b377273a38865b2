// `workbench-cli train` on labelled texts with a Hugging Face folder (tests/fixtures/huggingface/tiny-bert:
// transformers' BertForSequenceClassification, 2 layers, hidden 32, its vocab.txt): the CSV tokenized and cut
// into batches padded per batch, the folder's weights loaded with a classifier made for the file's two
// labels, trained until it tells the labels apart; evaluated per class. And what is refused before anything
// trains, each naming its key or file: texts without a text model, a text model without texts, a file of one
// label, a tokenizer of another model, texts longer than the model's positions, a folder of another
// architecture.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "cli/cli_runner.h"
#include "support/temporary_folder.h"

// A namespace of its own: the unity build puts this file beside others with helpers of the same names.
namespace cli_text_test {
namespace {

using wb::test::runCliAfter;

const std::string kBert = std::string(WB_SOURCE_DIR) + "/tests/fixtures/huggingface/tiny-bert";

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Reviews in the fixture's words: a label's words among neutral ones, 2 to 30 words long.
void writeReviews(const std::string& file, int rows, bool oneLabel = false) {
  const std::vector<std::string> good{"good", "great", "fun", "love", "best", "fine", "nice"};
  const std::vector<std::string> bad{"bad", "awful", "boring", "hate", "worst", "slow", "poor", "dull"};
  const std::vector<std::string> neutral{"the", "film", "movie", "plot", "story", "acting",
                                         "was", "is",   "very",  "and",  "it",    "this"};
  std::mt19937 draw(7);
  std::ofstream out(file);
  out << "review,sentiment\n";
  for (int i = 0; i < rows; ++i) {
    const bool positive = oneLabel || i % 2 == 1;
    std::string text;
    const int words = 2 + static_cast<int>(draw() % 29);
    for (int w = 0; w < words; ++w) {
      const auto& pool = w % 5 == 2 ? (positive ? good : bad) : neutral;
      text += (w ? " " : "") + pool[draw() % pool.size()];
    }
    out << "\"" << text << "\"," << (positive ? "pos" : "neg") << "\n";
  }
}

struct TextRun {
  wb::test::TemporaryFolder folder{"cli-text"};
  std::string csv = folder.path() + "/reviews.csv";
  std::string experiment = folder.path() + "/experiment.json";
  std::string runs = folder.path() + "/runs";

  void write(const nlohmann::json& changes) {
    nlohmann::json e = {
        {"data",
         {{"dataset", "text"},
          {"path", csv},
          {"text", {{"text_column", "review"}, {"label_column", "sentiment"}, {"max_length", 48}}}}},
        {"model", {{"huggingface", kBert}}},
        {"optimizer", {{"lr", 0.003}}},
        {"train", {{"epochs", 4}, {"batch_size", 16}}},
        {"output", {{"runs_dir", runs}}}};
    e.merge_patch(changes);  // an object: null would replace the whole file
    std::ofstream(experiment) << e.dump(1);
  }
  // The tokens' cache in the test's folder, not the user's.
  wb::test::CliResult run(const std::string& args) {
    return runCliAfter("XDG_CACHE_HOME=" + folder.path() + "/cache", args);
  }
};

TEST(CliText, ABertFolderLearnsTheLabelsOfACsvOfTexts) {
  TextRun t;
  writeReviews(t.csv, 400);
  t.write(nlohmann::json::object());
  const auto trained = t.run("train " + t.experiment);
  ASSERT_EQ(trained.status, 0) << trained.err << trained.out;
  EXPECT_TRUE(
      has(trained.out, "Texts " + t.csv + ": 288 train, 32 val, 80 test, 2 classes; tokens per text:"))
      << trained.out;
  EXPECT_TRUE(has(trained.out, "Padding wasted per batch of 16: ")) << trained.out;
  EXPECT_TRUE(has(trained.out, "with length buckets (")) << trained.out;
  EXPECT_TRUE(
      has(trained.out, "weights: loaded 39 of 41 tensors of the model from " + kBert + "/model.safetensors"))
      << trained.out;
  EXPECT_TRUE(has(trained.out,
                  "new head: 2 classes (the file's has 3), initialized fresh: classifier.weight, "
                  "classifier.bias"))
      << trained.out;
  const std::string run = wb::test::onlyRunFolder(t.runs);
  EXPECT_TRUE(has(run, "-tiny-bert-text")) << run;
  const nlohmann::json summary = nlohmann::json::parse(wb::test::readFile(run + "/summary.json"));
  EXPECT_GE(summary["test_accuracy"].get<double>(), 0.9) << summary.dump();
  const auto evaluated = t.run("eval " + run);
  ASSERT_EQ(evaluated.status, 0) << evaluated.err;
  EXPECT_TRUE(has(evaluated.out, "neg")) << evaluated.out;
  EXPECT_TRUE(has(evaluated.out, "pos")) << evaluated.out;
  const auto exported = t.run("export " + run + " --format onnx --out " + t.folder.path() + "/m.onnx");
  EXPECT_EQ(exported.status, 2);
  EXPECT_TRUE(has(exported.err, "trained a Hugging Face text model (model.huggingface " + kBert +
                                    "): it is not compressed or exported yet"))
      << exported.err;
}

// Refused by `check` (and so by `train`) before a run folder exists: `expected` in its output.
void expectRefused(TextRun& t, const nlohmann::json& changes, const std::string& expected) {
  t.write(changes);
  const auto r = t.run("check " + t.experiment);
  EXPECT_NE(r.status, 0) << changes.dump();
  EXPECT_TRUE(has(r.out + r.err, expected)) << changes.dump() << "\n" << r.out << r.err;
  EXPECT_FALSE(std::filesystem::exists(t.runs));
}

TEST(CliText, WhatCannotTrainIsRefusedNamingItsKeyOrFile) {
  TextRun t;
  writeReviews(t.csv, 60);
  expectRefused(t, {{"model", {{"huggingface", ""}}}}, "model.huggingface");
  expectRefused(t, {{"data", {{"dataset", "fashion-mnist"}}}}, "a Hugging Face text model reads texts");
  expectRefused(
      t, {{"data", {{"text", {{"max_length", 100}}}}}},
      "data.text.max_length: 100 tokens, but " + kBert + "/config.json gives the model 64 positions");
  {
    std::ofstream vocab(t.folder.path() + "/big-vocab.txt");
    vocab << "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n";
    for (int i = 0; i < 200; ++i) vocab << "w" << i << "\n";
  }
  expectRefused(t, {{"data", {{"text", {{"tokenizer", t.folder.path() + "/big-vocab.txt"}}}}}},
                "gives ids up to 204 but " + kBert + "/config.json's vocab_size is 99");
  std::filesystem::create_directory(t.folder.path() + "/gpt2");
  std::ofstream(t.folder.path() + "/gpt2/config.json") << R"({"model_type": "gpt2"})";
  expectRefused(
      t,
      {{"model", {{"huggingface", t.folder.path() + "/gpt2"}}}, {"data", {{"text", {{"tokenizer", kBert}}}}}},
      "model_type is 'gpt2'; text classification reads 'bert' and 'distilbert'");
  writeReviews(t.csv, 20, /*oneLabel=*/true);
  expectRefused(t, nlohmann::json::object(), t.csv + ": every text has the label 'pos' (column sentiment)");
}

}  // namespace
}  // namespace cli_text_test
