#pragma once
// A file of labelled texts tokenized: every good record's token ids and type ids back to back, its label and
// where it came from, the records the bad-files policy left out, and what truncation dropped. Made once, by
// the loader's workers, and kept in the user's cache (data/text_cache.h); batches are cut from it without
// touching the text again (data/text_source.h).

#include <cstdint>
#include <string>
#include <vector>

#include "text/text_records.h"
#include "text/text_tokenizer.h"
#include "workbench/experiment_words.h"

namespace wb {

struct BadTextRecord {
  std::string where;   // "reviews.csv, line 12"
  std::string reason;  // "no label"
};

struct TokenizedTexts {
  std::vector<int32_t> ids;              // every record's tokens, back to back
  std::vector<uint8_t> type_ids;         // one per token: 0 for the text, 1 for the pair
  std::vector<int64_t> offsets{0};       // record i is [offsets[i], offsets[i + 1])
  std::vector<int64_t> labels;           // index into label_names
  std::vector<std::string> label_names;  // the file's labels, sorted
  std::vector<std::string> where;        // per record, for messages and the evaluation view
  std::vector<BadTextRecord> bad;        // left out (data's bad-files policy: skip)
  int64_t truncated_records = 0;         // records longer than max_length, cut
  int64_t truncated_tokens = 0;          // the tokens that cut dropped

  int64_t size() const { return static_cast<int64_t>(labels.size()); }
  int64_t length(int64_t i) const {
    return offsets[static_cast<size_t>(i) + 1] - offsets[static_cast<size_t>(i)];
  }
};

struct TextTokenizing {
  int64_t max_length = 512;  // with the special tokens; longer texts are cut longest-first and counted
  int workers = 1;           // threads that tokenize
  BadFilePolicy bad_records = BadFilePolicy::Error;
  std::string source;  // the file, for messages about it as a whole
};

// Reads every record of `reader` and tokenizes the good ones on `options.workers` threads, in the file's
// order. DataError naming the record for the first bad one when the policy is error (and for a text that is
// not UTF-8 anywhere the tokenizer finds it), and for a file without a good record.
TokenizedTexts tokenizeTexts(text::TextRecordReader& reader, const text::TextTokenizer& tokenizer,
                             const TextTokenizing& options);

}  // namespace wb
