#include "data/tokenized_texts.h"

#include <algorithm>
#include <future>
#include <map>

#include "workbench/errors.h"

namespace wb {
namespace {

// Records read ahead and tokenized together: enough to keep the workers busy, few enough that a file larger
// than memory is never held as text.
constexpr size_t kRecordsPerRound = 4096;

struct Encoded {
  std::vector<int32_t> ids;
  std::vector<uint8_t> type_ids;
  int64_t truncated = 0;
};

std::vector<Encoded> encodeRange(const std::vector<text::TextRecord>& records, size_t begin, size_t end,
                                 const text::TextTokenizer& tokenizer, int64_t max_length) {
  std::vector<Encoded> out(end - begin);
  text::EncodeOptions options;
  options.max_length = max_length;
  for (size_t i = begin; i < end; ++i) {
    const text::TextRecord& r = records[i];
    try {
      const text::TokenEncoding e = r.pair.empty() ? tokenizer.encode(r.text, std::nullopt, options)
                                                   : tokenizer.encode(r.text, r.pair, options);
      Encoded& o = out[i - begin];
      o.ids.assign(e.ids.begin(), e.ids.end());
      o.type_ids.assign(e.type_ids.begin(), e.type_ids.end());
      o.truncated = e.truncated;
    } catch (const DataError& error) {
      throw DataError(r.where + ": " + error.what(), error.hint());
    }
  }
  return out;
}

// The round's records encoded on `workers` threads, each a contiguous share, in order.
std::vector<Encoded> encodeRound(const std::vector<text::TextRecord>& records,
                                 const text::TextTokenizer& tokenizer, const TextTokenizing& options) {
  const size_t workers = std::max<size_t>(1, std::min<size_t>(options.workers, records.size()));
  const size_t share = (records.size() + workers - 1) / workers;
  std::vector<std::future<std::vector<Encoded>>> parts;
  for (size_t begin = 0; begin < records.size(); begin += share) {
    const size_t end = std::min(records.size(), begin + share);
    parts.push_back(std::async(workers == 1 ? std::launch::deferred : std::launch::async, encodeRange,
                               std::cref(records), begin, end, std::cref(tokenizer), options.max_length));
  }
  std::vector<Encoded> out;
  out.reserve(records.size());
  for (auto& part : parts) {
    for (Encoded& e : part.get()) out.push_back(std::move(e));
  }
  return out;
}

class TextsBuilder {
 public:
  void add(const text::TextRecord& record, Encoded encoded) {
    texts.ids.insert(texts.ids.end(), encoded.ids.begin(), encoded.ids.end());
    texts.type_ids.insert(texts.type_ids.end(), encoded.type_ids.begin(), encoded.type_ids.end());
    texts.offsets.push_back(static_cast<int64_t>(texts.ids.size()));
    const auto [found, added] = m_label_ids.emplace(record.label, static_cast<int64_t>(m_label_ids.size()));
    texts.labels.push_back(found->second);
    texts.where.push_back(record.where);
    if (encoded.truncated > 0) {
      ++texts.truncated_records;
      texts.truncated_tokens += encoded.truncated;
    }
  }

  // Labels numbered in sorted order (as an image folder's classes are), whatever order the file has them in.
  TokenizedTexts finish() {
    std::vector<int64_t> sortedIndex(m_label_ids.size());
    int64_t next = 0;
    for (const auto& [name, firstSeen] : m_label_ids) {
      texts.label_names.push_back(name);
      sortedIndex[static_cast<size_t>(firstSeen)] = next++;
    }
    for (int64_t& label : texts.labels) label = sortedIndex[static_cast<size_t>(label)];
    return std::move(texts);
  }

  TokenizedTexts texts;

 private:
  std::map<std::string, int64_t> m_label_ids;  // label -> its number in first-seen order
};

}  // namespace

TokenizedTexts tokenizeTexts(text::TextRecordReader& reader, const text::TextTokenizer& tokenizer,
                             const TextTokenizing& options) {
  TextsBuilder builder;
  std::vector<text::TextRecord> round;
  text::TextRecord record;
  bool more = true;
  while (more) {
    round.clear();
    while (round.size() < kRecordsPerRound && (more = reader.next(record))) {
      if (record.problem.empty()) {
        round.push_back(std::move(record));
      } else if (options.bad_records == BadFilePolicy::Error) {
        throw DataError(record.where + ": " + record.problem,
                        "fix the row, or have bad rows skipped (they are then counted and listed)");
      } else {
        builder.texts.bad.push_back({record.where, record.problem});
      }
      record = {};
    }
    std::vector<Encoded> encoded = encodeRound(round, tokenizer, options);
    for (size_t i = 0; i < round.size(); ++i) builder.add(round[i], std::move(encoded[i]));
  }
  if (builder.texts.size() == 0) {
    throw DataError(
        options.source + ": no text with a label" +
            (builder.texts.bad.empty() ? std::string()
                                       : " (" + std::to_string(builder.texts.bad.size()) +
                                             " rows left out, the first: " + builder.texts.bad[0].where +
                                             ": " + builder.texts.bad[0].reason + ")"),
        "give a file with a text and a label in each row");
  }
  return builder.finish();
}

}  // namespace wb
