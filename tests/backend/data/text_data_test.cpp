// Labelled texts as training data: a file tokenized once on the loader's workers in the file's order
// (data/tokenized_texts.h), its bad rows stopped at or skipped and listed, truncation counted; kept in the
// user's cache by contents and read back, never written into the data's folder (data/text_cache.h); batches
// padded to their own longest text and packed as the text models read them (data/text_source.h); and length
// bucketing, which keeps every sample once an epoch and wastes less padding (data/length_buckets.h).

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

#include "data/batch_loader.h"
#include "data/length_buckets.h"
#include "data/text_cache.h"
#include "data/text_source.h"
#include "data/tokenized_texts.h"
#include "support/temporary_folder.h"
#include "text/tokenizer_files.h"
#include "util/packed_text_input.h"
#include "workbench/errors.h"

namespace text_data_test {
namespace {

namespace fs = std::filesystem;

// A BERT vocabulary (uncased: no tokenizer_config.json, BERT's defaults) and a CSV of reviews in its words.
struct TextFixture {
  wb::test::TemporaryFolder folder{"texts"};
  std::string vocab = folder.path() + "/vocab.txt";
  std::string csv = folder.path() + "/reviews.csv";

  TextFixture() {
    std::ofstream v(vocab);
    for (const char* piece :
         {"[PAD]", "[UNK]", "[CLS]", "[SEP]",  "[MASK]", "the", "film", "was", "good", "bad",
          "very",  "plot",  "slow",  "actors", "great",  "not", "##s",  ",",   ".",    "!"}) {
      v << piece << "\n";
    }
    std::ofstream c(csv);
    c << "text,label\n"
         "\"The film was good.\",pos\n"
         "\"Very slow, very bad plot!\",neg\n"
         "The actors were great,pos\n"  // "were": unknown, one [UNK]
         "\"Not good. Not good. Not good. Not good.\",neg\n"
         "Bad.,neg\n";
  }
  std::unique_ptr<wb::text::TextTokenizer> tokenizer() const { return wb::text::loadTokenizer(vocab); }
  wb::TokenizedTexts tokenize(const std::string& file, wb::TextTokenizing options = {}) const {
    auto records = wb::text::openTextRecords(file, {});
    return wb::tokenizeTexts(*records, *tokenizer(), options);
  }
};

TEST(TokenizedTexts, EveryRecordAsTheTokenizerEncodesItInTheFilesOrder) {
  TextFixture f;
  wb::TextTokenizing options;
  options.max_length = 8;
  const wb::TokenizedTexts t = f.tokenize(f.csv, options);
  ASSERT_EQ(t.size(), 5);
  EXPECT_EQ(t.label_names, (std::vector<std::string>{"neg", "pos"}));
  EXPECT_EQ(t.labels, (std::vector<int64_t>{1, 0, 1, 0, 0}));
  EXPECT_EQ(t.where[1], std::string("reviews.csv, line 3"));
  const std::vector<std::string> texts{"The film was good.", "Very slow, very bad plot!",
                                       "The actors were great", "Not good. Not good. Not good. Not good.",
                                       "Bad."};
  for (int64_t i = 0; i < t.size(); ++i) {
    wb::text::EncodeOptions encode;
    encode.max_length = 8;
    const wb::text::TokenEncoding e =
        f.tokenizer()->encode(texts[static_cast<size_t>(i)], std::nullopt, encode);
    const std::vector<int64_t> ours(t.ids.begin() + t.offsets[static_cast<size_t>(i)],
                                    t.ids.begin() + t.offsets[static_cast<size_t>(i) + 1]);
    EXPECT_EQ(ours, e.ids) << texts[static_cast<size_t>(i)];
  }
  // "[CLS] very slow , very bad plot ! [SEP]" is 9 and "[CLS] not good . not good . not good . not good .
  // [SEP]" 14: cut to 8, 1 and 6 dropped.
  EXPECT_EQ(t.truncated_records, 2);
  EXPECT_EQ(t.truncated_tokens, 7);
  EXPECT_EQ(t.length(3), 8);
}

TEST(TokenizedTexts, ManyWorkersGiveTheOneWorkersResult) {
  TextFixture f;
  {
    std::ofstream c(f.csv);
    c << "text,label\n";
    for (int i = 0; i < 9000; ++i)
      c << "the film was " << (i % 3 ? "good" : "very bad") << "," << i % 3 << "\n";
  }
  wb::TextTokenizing one, four;
  four.workers = 4;
  const wb::TokenizedTexts a = f.tokenize(f.csv, one), b = f.tokenize(f.csv, four);
  EXPECT_EQ(a.ids, b.ids);
  EXPECT_EQ(a.offsets, b.offsets);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.where, b.where);
  EXPECT_EQ(a.size(), 9000);
}

TEST(TokenizedTexts, ABadRowStopsNamingItsLineOrIsSkippedAndListed) {
  TextFixture f;
  std::ofstream(f.csv, std::ios::app) << "\"the plot\",\n";  // line 7: no label
  std::string message;
  try {
    f.tokenize(f.csv);
  } catch (const wb::DataError& e) {
    message = e.what();
  }
  EXPECT_EQ(message.rfind(std::string("reviews.csv, line 7: "), 0), 0u) << message;
  wb::TextTokenizing skip;
  skip.bad_records = wb::BadFilePolicy::Skip;
  const wb::TokenizedTexts t = f.tokenize(f.csv, skip);
  EXPECT_EQ(t.size(), 5);
  ASSERT_EQ(t.bad.size(), 1u);
  EXPECT_EQ(t.bad[0].where, std::string("reviews.csv, line 7"));
}

TEST(TokenizedTexts, AFileWithoutAGoodRowIsRefused) {
  TextFixture f;
  std::ofstream(f.csv) << "text,label\n\"\",pos\n";
  wb::TextTokenizing skip;
  skip.bad_records = wb::BadFilePolicy::Skip;
  skip.source = f.csv;
  std::string message;
  try {
    f.tokenize(f.csv, skip);
  } catch (const wb::DataError& e) {
    message = e.what();
  }
  EXPECT_EQ(message.rfind(f.csv + ": no text with a label (1 rows left out, the first: " +
                              std::string("reviews.csv, line 2"),
                          0),
            0u)
      << message;
}

TEST(TextSource, ABatchIsPaddedToItsLongestTextAndPacked) {
  TextFixture f;
  auto texts = std::make_shared<wb::TokenizedTexts>(f.tokenize(f.csv));
  const wb::TextSource source(texts, {4, 0, 1}, /*pad_id=*/0, 1);
  EXPECT_EQ(source.sampleLengths(),
            (std::vector<int64_t>{texts->length(4), texts->length(0), texts->length(1)}));
  EXPECT_TRUE(torch::equal(source.labels(), torch::tensor({0, 1, 0}, torch::kLong)));
  EXPECT_EQ(source.sampleName(0), std::string("reviews.csv, line 6"));
  // Rows 0 and 2 of the split: "Bad." (4 tokens) and "Very slow, very bad plot!" (9): padded to 9.
  const torch::Tensor packed = source.inputs({0, 2}, std::nullopt, false);
  ASSERT_EQ(packed.sizes(), (std::vector<int64_t>{2, 3, 9}));
  const wb::TextInput in = wb::unpackTextInput(packed);
  EXPECT_EQ(in.input_ids[0].slice(0, 4).sum().item<int64_t>(), 0);  // [PAD] is 0
  EXPECT_TRUE(torch::equal(in.attention_mask[0], torch::tensor({1, 1, 1, 1, 0, 0, 0, 0, 0}, torch::kLong)));
  EXPECT_TRUE(torch::equal(in.attention_mask[1], torch::ones({9}, torch::kLong)));
  EXPECT_EQ(in.input_ids[1][0].item<int64_t>(), 2);  // [CLS]
  EXPECT_EQ(in.token_type_ids.sum().item<int64_t>(), 0);
}

std::vector<int64_t> lengthsOf(int64_t n) {
  std::vector<int64_t> lengths;
  for (int64_t i = 0; i < n; ++i) lengths.push_back(3 + (i * 7919) % 61);
  return lengths;
}

TEST(LengthBuckets, EverySampleOnceAndLessPaddingWasted) {
  const std::vector<int64_t> lengths = lengthsOf(1000);
  std::vector<int64_t> order(1000);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(3));
  const std::vector<int64_t> bucketed = wb::lengthBucketedOrder(order, lengths, 32, 7, 10);
  EXPECT_EQ(std::multiset<int64_t>(bucketed.begin(), bucketed.end()),
            std::multiset<int64_t>(order.begin(), order.end()));
  const double plain = wb::paddingWasted(order, lengths, 32), less = wb::paddingWasted(bucketed, lengths, 32);
  EXPECT_GT(plain, 0.4);
  EXPECT_LT(less, 0.1);
  EXPECT_EQ(bucketed, wb::lengthBucketedOrder(order, lengths, 32, 7, 10));  // drawn from the seed
  EXPECT_NE(bucketed, wb::lengthBucketedOrder(order, lengths, 32, 8, 10));
  // 1000 = 31 x 32 + 8: the short batch stays last.
  const std::set<int64_t> last(bucketed.end() - 8, bucketed.end());
  const std::vector<int64_t> lastPool(order.begin() + 960, order.end());
  std::vector<int64_t> sortedPool = lastPool;
  std::stable_sort(sortedPool.begin(), sortedPool.end(),
                   [&](int64_t a, int64_t b) { return lengths[a] < lengths[b]; });
  EXPECT_EQ(last, std::set<int64_t>(sortedPool.end() - 8, sortedPool.end()));
}

TEST(LengthBuckets, TheLoaderBucketsATextSourceTheSameWayEachTime) {
  TextFixture f;
  {
    std::ofstream c(f.csv);
    c << "text,label\n";
    for (int i = 0; i < 300; ++i) {
      c << "\"the film";
      for (int w = 0; w < (i * 37) % 40; ++w) c << " very";
      c << " good\"," << i % 2 << "\n";
    }
  }
  auto texts = std::make_shared<wb::TokenizedTexts>(f.tokenize(f.csv));
  std::vector<int64_t> rows(300);
  std::iota(rows.begin(), rows.end(), 0);
  const auto source = std::make_shared<wb::TextSource>(texts, rows, 0, 1);
  const auto epoch = [&](bool bucket) {
    wb::BatchLoaderOptions options;
    options.batch_size = 16;
    options.seed = 5;
    options.bucket_by_length = bucket;
    wb::BatchLoader loader(wb::DataSplit{torch::Tensor(), source->labels(), source}, options);
    loader.startEpoch(1);
    int64_t tokens = 0, positions = 0, samples = 0;
    std::vector<int64_t> firstIds;
    while (auto batch = loader.next()) {
      const wb::TextInput in = wb::unpackTextInput(batch->x);
      tokens += in.attention_mask.sum().item<int64_t>();
      positions += in.attention_mask.numel();
      samples += batch->y.size(0);
      if (firstIds.empty())
        firstIds = std::vector<int64_t>(in.input_ids.data_ptr<int64_t>(),
                                        in.input_ids.data_ptr<int64_t>() + in.input_ids.numel());
    }
    EXPECT_EQ(samples, 300);
    return std::make_pair(1.0 - static_cast<double>(tokens) / static_cast<double>(positions), firstIds);
  };
  const auto [plainWaste, plainFirst] = epoch(false);
  const auto [bucketWaste, bucketFirst] = epoch(true);
  EXPECT_LT(bucketWaste, plainWaste / 3) << plainWaste << " " << bucketWaste;
  EXPECT_EQ(bucketFirst, epoch(true).second);  // a resumed run sees the same batches
}

// The cache lives in $XDG_CACHE_HOME for the test's length.
class TextCache : public testing::Test {
 protected:
  void SetUp() override { ::setenv("XDG_CACHE_HOME", m_cache.path().c_str(), 1); }
  void TearDown() override { ::unsetenv("XDG_CACHE_HOME"); }
  wb::test::TemporaryFolder m_cache{"cache"};
};

TEST_F(TextCache, ASecondRunReadsTheTokensAndAnEditedFileIsTokenizedAgain) {
  TextFixture f;
  const auto listing = [&] {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(f.folder.path())) names.insert(e.path().filename());
    return names;
  };
  const std::set<std::string> before = listing();
  const wb::TokenizedTextFile first = wb::tokenizeTextFile(f.csv, {}, f.vocab, {});
  EXPECT_FALSE(first.from_cache);
  EXPECT_EQ(first.cache_file.rfind(m_cache.path() + "/torch-workbench/texts/", 0), 0u) << first.cache_file;
  const wb::TokenizedTextFile second = wb::tokenizeTextFile(f.csv, {}, f.vocab, {});
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.cache_file, first.cache_file);
  EXPECT_EQ(second.texts->ids, first.texts->ids);
  EXPECT_EQ(second.texts->where, first.texts->where);
  EXPECT_EQ(second.texts->label_names, first.texts->label_names);
  EXPECT_EQ(listing(), before);  // the data's folder is read, never written
  // Another max_length, an edited file, an edited vocabulary: each its own tokens.
  wb::TextTokenizing shorter;
  shorter.max_length = 6;
  EXPECT_FALSE(wb::tokenizeTextFile(f.csv, {}, f.vocab, shorter).from_cache);
  std::ofstream(f.csv, std::ios::app) << "Good.,pos\n";
  const wb::TokenizedTextFile edited = wb::tokenizeTextFile(f.csv, {}, f.vocab, {});
  EXPECT_FALSE(edited.from_cache);
  EXPECT_EQ(edited.texts->size(), 6);
  std::ofstream(f.vocab, std::ios::app) << "bored\n";
  EXPECT_FALSE(wb::tokenizeTextFile(f.csv, {}, f.vocab, {}).from_cache);
}

TEST_F(TextCache, ADamagedCacheFileIsTokenizedAnew) {
  TextFixture f;
  const wb::TokenizedTextFile first = wb::tokenizeTextFile(f.csv, {}, f.vocab, {});
  std::string bytes = wb::serializeTokenizedTexts(*first.texts);
  ASSERT_NE(wb::deserializeTokenizedTexts(bytes), nullptr);
  EXPECT_EQ(wb::deserializeTokenizedTexts(bytes.substr(0, bytes.size() - 3)), nullptr);
  std::ofstream(first.cache_file, std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  const wb::TokenizedTextFile again = wb::tokenizeTextFile(f.csv, {}, f.vocab, {});
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(again.texts->ids, first.texts->ids);
  EXPECT_TRUE(wb::tokenizeTextFile(f.csv, {}, f.vocab, {}).from_cache);  // written anew
}

}  // namespace
}  // namespace text_data_test
