#pragma once
// A user's labelled texts, read one record at a time (a file larger than memory is never held whole): a CSV
// or TSV with a header (RFC 4180 quoting, line breaks inside quotes included), JSON Lines, or a folder of
// class subfolders of .txt files (one text a file, the folder's name its label). The columns are named by
// keys: the text, an optional second text (sentence pairs), the label. A row that cannot be a sample (no
// label, an empty text, not UTF-8, too few cells) comes back as a bad record naming its line, for the data's
// bad-files policy to skip or stop at, as bad image files are; what makes the whole file unusable (a missing
// column, a file that cannot be read) is a DataError naming the file.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace wb::text {

struct TextColumns {
  std::string text = "text";
  std::string text_pair;  // "" for single texts
  std::string label = "label";
};

struct TextRecord {
  std::string text;
  std::string pair;
  std::string label;
  std::string where;    // "reviews.csv, line 12" or the .txt file's path
  std::string problem;  // "" for a good record; otherwise what is wrong with it
};

class TextRecordReader {
 public:
  virtual ~TextRecordReader() = default;
  // The next record, good or bad; false at the end.
  virtual bool next(TextRecord& record) = 0;
};

// By the path: a folder, or a file by its extension (.csv, .tsv, .jsonl / .ndjson). DataError naming the file
// and what to do for an unknown kind, a missing column (with the file's columns, and the likely one), an
// empty file.
std::unique_ptr<TextRecordReader> openTextRecords(const std::filesystem::path& path,
                                                  const TextColumns& columns);

}  // namespace wb::text
