#include "text/text_records.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "text/unicode_chars.h"
#include "workbench/did_you_mean.h"
#include "workbench/errors.h"

namespace wb::text {
namespace {

using nlohmann::json;

bool isBlank(const std::string& text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// What is wrong with a record's cells, or "".
std::string problemOf(const TextRecord& record, bool hasPair) {
  for (const std::string* cell : {&record.text, &record.pair, &record.label}) {
    try {
      decodeUtf8(*cell);
    } catch (const DataError&) {
      return "not UTF-8 (save the file as UTF-8)";
    }
  }
  if (isBlank(record.label)) return "no label";
  if (isBlank(record.text)) return "an empty text";
  if (hasPair && isBlank(record.pair)) return "an empty second text";
  return "";
}

[[noreturn]] void missingColumn(const std::filesystem::path& file, const std::string& key,
                                const std::string& name, const std::vector<std::string>& columns) {
  std::string list;
  for (const std::string& column : columns) list += (list.empty() ? "" : ", ") + column;
  const std::string guess = didYouMean(name, columns);
  throw DataError(
      file.string() + ": no column '" + name + "' (" + key + "); its columns are " + list,
      guess.empty() ? "name the column with " + key : "did you mean '" + guess + "'? (" + key + ")");
}

// CSV (',') and TSV ('\t'): one record may span lines inside quotes.
class DelimitedRecords final : public TextRecordReader {
 public:
  DelimitedRecords(const std::filesystem::path& file, char delimiter, const TextColumns& columns)
      : m_file(file),
        m_in(file, std::ios::binary),
        m_delimiter(delimiter),
        m_has_pair(!columns.text_pair.empty()) {
    if (!m_in)
      throw DataError(file.string() + ": cannot be read", "check that the file exists and is readable");
    std::vector<std::string> header;
    if (!readRow(header))
      throw DataError(file.string() + ": the file is empty", "a header line, then a text a line");
    if (!header.empty() && header[0].rfind("\xEF\xBB\xBF", 0) == 0) header[0].erase(0, 3);  // a UTF-8 BOM
    m_text = columnOf(header, "data.text.text_column", columns.text);
    m_label = columnOf(header, "data.text.label_column", columns.label);
    if (m_has_pair) m_pair = columnOf(header, "data.text.pair_column", columns.text_pair);
  }

  bool next(TextRecord& record) override {
    std::vector<std::string> cells;
    int64_t line = 0;
    do {  // blank lines are no records (as pandas' skip_blank_lines)
      line = m_line + 1;
      if (!readRow(cells)) return false;
    } while (cells.size() == 1 && isBlank(cells[0]));
    record = TextRecord{};
    record.where = m_file.filename().string() + ", line " + std::to_string(line);
    const size_t needed = std::max({m_text, m_label, m_has_pair ? m_pair : 0}) + 1;
    if (cells.size() < needed) {
      record.problem =
          std::to_string(cells.size()) + " cells where the header has " + std::to_string(m_columns);
      return true;
    }
    record.text = std::move(cells[m_text]);
    record.label = std::move(cells[m_label]);
    if (m_has_pair) record.pair = std::move(cells[m_pair]);
    record.problem = problemOf(record, m_has_pair);
    return true;
  }

 private:
  size_t columnOf(const std::vector<std::string>& header, const std::string& key, const std::string& name) {
    m_columns = header.size();
    const auto found = std::find(header.begin(), header.end(), name);
    if (found == header.end()) missingColumn(m_file, key, name, header);
    return static_cast<size_t>(found - header.begin());
  }

  // One record's cells (quotes: "" is a quote, a delimiter or line break inside quotes is the cell's).
  bool readRow(std::vector<std::string>& cells) {
    std::string line;
    if (!std::getline(m_in, line)) return false;
    ++m_line;
    cells.assign(1, std::string());
    bool quoted = false;
    for (size_t i = 0;; ++i) {
      if (i == line.size()) {
        if (!quoted) break;
        std::string more;
        if (!std::getline(m_in, more)) break;  // an unclosed quote ends with the file
        ++m_line;
        cells.back() += '\n';
        line = std::move(more);
        i = static_cast<size_t>(-1);
        continue;
      }
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cells.back() += '"';
        ++i;
      } else if (c == '"' && (quoted || cells.back().empty())) {
        quoted = !quoted;
      } else if (!quoted && c == m_delimiter) {
        cells.emplace_back();
      } else if (!quoted && c == '\r' && i + 1 == line.size()) {
        // a Windows line end
      } else {
        cells.back() += c;
      }
    }
    return true;
  }

  std::filesystem::path m_file;
  std::ifstream m_in;
  char m_delimiter;
  bool m_has_pair;
  size_t m_text = 0, m_pair = 0, m_label = 0, m_columns = 0;
  int64_t m_line = 0;
};

// JSON Lines: one object a line; a label may be a string or a number.
class JsonLinesRecords final : public TextRecordReader {
 public:
  JsonLinesRecords(const std::filesystem::path& file, const TextColumns& columns)
      : m_file(file), m_in(file, std::ios::binary), m_columns(columns) {
    if (!m_in)
      throw DataError(file.string() + ": cannot be read", "check that the file exists and is readable");
    if (m_in.peek() == std::ifstream::traits_type::eof()) {
      throw DataError(file.string() + ": the file is empty", "one JSON object a line");
    }
  }

  bool next(TextRecord& record) override {
    std::string line;
    do {
      if (!std::getline(m_in, line)) return false;
      ++m_line;
    } while (isBlank(line));
    record = TextRecord{};
    record.where = m_file.filename().string() + ", line " + std::to_string(m_line);
    json object;
    try {
      object = json::parse(line);
    } catch (const json::exception&) {
      record.problem = "not a JSON object";
      return true;
    }
    if (!object.is_object()) {
      record.problem = "not a JSON object";
      return true;
    }
    if (m_line == 1) checkKeys(object);
    record.text = stringOf(object, m_columns.text);
    record.label = stringOf(object, m_columns.label);
    if (!m_columns.text_pair.empty()) record.pair = stringOf(object, m_columns.text_pair);
    record.problem = problemOf(record, !m_columns.text_pair.empty());
    return true;
  }

 private:
  // The first object names the keys: one it lacks is a mistake in the keys, not in a row.
  void checkKeys(const json& object) const {
    std::vector<std::string> keys;
    for (const auto& item : object.items()) keys.push_back(item.key());
    for (const auto& [key, name] : {std::pair{"data.text.text_column", m_columns.text},
                                    std::pair{"data.text.label_column", m_columns.label},
                                    std::pair{"data.text.pair_column", m_columns.text_pair}}) {
      if (!name.empty() && !object.contains(name)) missingColumn(m_file, key, name, keys);
    }
  }

  static std::string stringOf(const json& object, const std::string& key) {
    const auto found = object.find(key);
    if (found == object.end() || found->is_null()) return "";
    return found->is_string() ? found->get<std::string>() : found->dump();
  }

  std::filesystem::path m_file;
  std::ifstream m_in;
  TextColumns m_columns;
  int64_t m_line = 0;
};

// A folder of class subfolders of .txt files, in name order.
class FolderRecords final : public TextRecordReader {
 public:
  explicit FolderRecords(const std::filesystem::path& folder) {
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
      if (!entry.is_directory()) continue;
      for (const auto& file : std::filesystem::recursive_directory_iterator(entry.path())) {
        if (file.is_regular_file() && file.path().extension() == ".txt") {
          m_files.emplace_back(entry.path().filename().string(), file.path());
        }
      }
    }
    std::sort(m_files.begin(), m_files.end());
    if (m_files.empty()) {
      throw DataError(folder.string() + ": no .txt files in class subfolders",
                      "one subfolder a class (its name is the label), one text a .txt file in it");
    }
  }

  bool next(TextRecord& record) override {
    if (m_next == m_files.size()) return false;
    const auto& [label, file] = m_files[m_next++];
    record = TextRecord{};
    record.where = file.string();
    record.label = label;
    std::ifstream in(file, std::ios::binary);
    record.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) record.problem = "cannot be read";
    if (record.problem.empty()) record.problem = problemOf(record, false);
    return true;
  }

 private:
  std::vector<std::pair<std::string, std::filesystem::path>> m_files;
  size_t m_next = 0;
};

}  // namespace

std::unique_ptr<TextRecordReader> openTextRecords(const std::filesystem::path& path,
                                                  const TextColumns& columns) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return std::make_unique<FolderRecords>(path);
  if (!std::filesystem::exists(path, error)) throw DataError(path.string() + ": no such file or folder");
  const std::string extension = path.extension().string();
  if (extension == ".csv") return std::make_unique<DelimitedRecords>(path, ',', columns);
  if (extension == ".tsv" || extension == ".tab")
    return std::make_unique<DelimitedRecords>(path, '\t', columns);
  if (extension == ".jsonl" || extension == ".ndjson")
    return std::make_unique<JsonLinesRecords>(path, columns);
  throw DataError(path.string() + ": not a kind of text file this workbench reads",
                  "a .csv or .tsv with a header, a .jsonl (one JSON object a line), or a folder of class "
                  "subfolders of .txt files");
}

}  // namespace wb::text
