#include "data/text_dataset.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "data/length_buckets.h"
#include "data/seed_mixing.h"
#include "data/split_rows.h"
#include "data/text_cache.h"
#include "data/text_source.h"
#include "text/tokenizer_files.h"
#include "workbench/errors.h"

namespace wb {
namespace {

// How many bad rows the description names before "and N more".
constexpr size_t kBadRowsNamed = 5;

std::string tokenizerOf(const DataConfig& config) {
  if (config.text.tokenizer.empty()) {
    throw UserError(
        "data.text.tokenizer: no tokenizer for the texts",
        "set model.huggingface to the model's folder (its tokenizer is used), or data.text.tokenizer "
        "to a tokenizer.json, vocab.txt or SentencePiece .model");
  }
  return config.text.tokenizer;
}

TokenizedTextFile tokenizeFile(const DataConfig& config, const std::string& file) {
  TextTokenizing options = textTokenizingOf(config);
  options.source = file;
  return tokenizeTextFile(file, textColumnsOf(config), tokenizerOf(config), options);
}

TokenizedTextFile trainingTexts(const DataConfig& config) {
  if (config.path.empty()) {
    throw UserError(
        "data.path must name the labelled texts when data.dataset is text",
        "a CSV, TSV or JSON Lines file with a text and a label column, or a folder of class folders");
  }
  TokenizedTextFile file = tokenizeFile(config, config.path);
  if (file.texts->label_names.size() < 2) {
    throw DataError(config.path + ": every text has the label '" + file.texts->label_names.front() +
                        "' (column " + config.text.label_column + "): a classifier needs two classes or more",
                    "check data.text.label_column, or add texts of the other classes");
  }
  return file;
}

// The test file's tokens with its labels numbered as the training file's; DataError for a label it lacks.
std::shared_ptr<const TokenizedTexts> testTexts(const DataConfig& config, const TokenizedTexts& train) {
  const TokenizedTextFile file = tokenizeFile(config, config.test_path);
  auto texts = std::make_shared<TokenizedTexts>(*file.texts);
  std::vector<int64_t> number(texts->label_names.size());
  for (size_t i = 0; i < texts->label_names.size(); ++i) {
    const auto it =
        std::lower_bound(train.label_names.begin(), train.label_names.end(), texts->label_names[i]);
    if (it == train.label_names.end() || *it != texts->label_names[i]) {
      const auto row = std::find(texts->labels.begin(), texts->labels.end(), static_cast<int64_t>(i));
      throw DataError(texts->where[static_cast<size_t>(row - texts->labels.begin())] + ": the label '" +
                          texts->label_names[i] + "' is not one of " + config.path + "'s",
                      "data.test_path must use the training file's labels");
    }
    number[i] = it - train.label_names.begin();
  }
  for (int64_t& label : texts->labels) label = number[static_cast<size_t>(label)];
  texts->label_names = train.label_names;
  return texts;
}

struct TextSplits {
  std::vector<int64_t> train, val, test;  // rows of the training file; test: of the test file when given
  int64_t train_pool = 0;
};

TextSplits splitTexts(const DataConfig& config, int64_t n, uint64_t seed) {
  TextSplits s;
  std::vector<int64_t> pool(static_cast<size_t>(n));
  std::iota(pool.begin(), pool.end(), 0);
  if (config.test_path.empty()) {
    const int64_t held = heldOutCount(n, config.test_fraction, "data.test_fraction");
    const auto [kept, test_rows] = seededSplit(n, held, streamSeed(seed, SeedStream::TextTestSplit));
    pool = rowsOf(kept);
    s.test = rowsOf(test_rows);
  }
  s.train_pool = static_cast<int64_t>(pool.size());
  TrainValRows rows = limitThenHoldOut(std::move(pool), config.limit, config.val_fraction,
                                       streamSeed(seed, SeedStream::TextLimit),
                                       streamSeed(seed, SeedStream::ValidationSplit));
  s.train = std::move(rows.train);
  s.val = std::move(rows.val);
  return s;
}

// The padding token of the tokenizer ([PAD], <pad>); 0 when it has none. Its value never reaches a result:
// the attention mask hides every padded position.
int64_t padIdOf(const DataConfig& config) {
  const auto tokenizer = text::loadTokenizer(tokenizerOf(config));
  for (const char* piece : {"[PAD]", "<pad>", "<|endoftext|>"}) {
    if (const auto id = tokenizer->tokenId(piece)) return *id;
  }
  return 0;
}

DataSplit splitOf(const std::shared_ptr<const TokenizedTexts>& texts, std::vector<int64_t> rows, int64_t pad,
                  int workers) {
  auto source = std::make_shared<TextSource>(texts, std::move(rows), pad, workers);
  DataSplit split;
  split.y = source->labels();
  split.source = std::move(source);
  return split;
}

std::string describe(const DataConfig& config, const Dataset& d, const TokenizedTextFile& file) {
  const TokenizedTexts& t = *file.texts;
  std::vector<int64_t> lengths(static_cast<size_t>(t.size()));
  for (int64_t i = 0; i < t.size(); ++i) lengths[static_cast<size_t>(i)] = t.length(i);
  std::sort(lengths.begin(), lengths.end());
  std::ostringstream out;
  out << "Texts " << config.path << ": " << d.train.size() << " train, " << d.val.size() << " val, "
      << d.test.size() << " test, " << d.num_classes << " classes; tokens per text: median "
      << lengths[lengths.size() / 2] << ", longest " << lengths.back();
  if (t.truncated_records > 0) {
    out << "; " << t.truncated_records << " texts cut to data.text.max_length " << config.text.max_length
        << " (" << t.truncated_tokens << " tokens dropped)";
  }
  out << (file.from_cache ? "; tokens from the cache" : "; tokenized")
      << (file.cache_file.empty() ? "" : " (") << file.cache_file << (file.cache_file.empty() ? "" : ")");
  if (!t.bad.empty()) {
    out << "; " << t.bad.size() << " rows left out (data.text.bad_rows skip):";
    for (size_t i = 0; i < std::min(t.bad.size(), kBadRowsNamed); ++i) {
      out << "\n  " << t.bad[i].where << ": " << t.bad[i].reason;
    }
    if (t.bad.size() > kBadRowsNamed) out << "\n  and " << t.bad.size() - kBadRowsNamed << " more";
  }
  return out.str();
}

}  // namespace

text::TextColumns textColumnsOf(const DataConfig& config) {
  text::TextColumns columns;
  columns.text = config.text.text_column;
  columns.text_pair = config.text.text_pair_column;
  columns.label = config.text.label_column;
  return columns;
}

TextTokenizing textTokenizingOf(const DataConfig& config) {
  TextTokenizing options;
  options.max_length = config.text.max_length;
  options.workers = static_cast<int>(std::max<int64_t>(1, config.workers));
  options.bad_records = config.text.bad_rows;
  return options;
}

Dataset loadTextDataset(const DataConfig& config, uint64_t seed) {
  const TokenizedTextFile file = trainingTexts(config);
  const TokenizedTexts& texts = *file.texts;
  TextSplits splits = splitTexts(config, texts.size(), seed);
  const int64_t pad = padIdOf(config);
  const int workers = static_cast<int>(config.workers);
  Dataset d;
  d.train = splitOf(file.texts, std::move(splits.train), pad, workers);
  d.val = splitOf(file.texts, std::move(splits.val), pad, workers);
  if (config.test_path.empty()) {
    d.test = splitOf(file.texts, std::move(splits.test), pad, workers);
  } else {
    const auto test = testTexts(config, texts);
    std::vector<int64_t> rows(static_cast<size_t>(test->size()));
    std::iota(rows.begin(), rows.end(), 0);
    d.test = splitOf(test, std::move(rows), pad, workers);
  }
  d.sample_shape = {3, config.text.max_length};
  d.num_classes = static_cast<int64_t>(texts.label_names.size());
  d.class_names = texts.label_names;
  d.description = describe(config, d, file);
  return d;
}

DataShape probeTextDataset(const DataConfig& config) {
  const TokenizedTextFile file = trainingTexts(config);
  DataShape shape;
  shape.sample_shape = {3, config.text.max_length};
  shape.num_classes = static_cast<int64_t>(file.texts->label_names.size());
  const int64_t n = file.texts->size();
  shape.train_samples =
      config.test_path.empty() ? n - heldOutCount(n, config.test_fraction, "data.test_fraction") : n;
  return shape;
}

double trainingPaddingWasted(const DataSplit& train, int64_t batch_size, bool bucket_by_length,
                             uint64_t seed) {
  if (!train.source) return -1;
  const std::vector<int64_t> lengths = train.source->sampleLengths();
  if (lengths.empty()) return -1;
  std::vector<int64_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
  if (bucket_by_length) order = lengthBucketedOrder(order, lengths, batch_size, seed);
  return paddingWasted(order, lengths, batch_size);
}

}  // namespace wb
