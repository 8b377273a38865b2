// Tables in CSV: a header line naming the columns, then one row per sample; every column but the label is a
// numeric feature. Numbers are parsed with std::from_chars, which ignores the process locale (the Qt window
// sets LC_NUMERIC from the environment, and strtod would then read "0.5" as 0 under a German locale).

#include <charconv>
#include <cmath>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "data/dataset_readers.h"
#include "workbench/errors.h"

namespace wb {

namespace {

// A class index above this is almost certainly a regression target or an id column, not a class.
constexpr double kMaxLabel = 100000;

std::string_view trim(std::string_view text) {
  const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
  return text;
}

// Commas separate cells; a cell in double quotes may hold commas, and "" inside quotes is one quote.
// Whitespace around a cell is dropped. Quoted line breaks are not supported (tables of numbers have none).
std::vector<std::string> splitCsvLine(std::string_view line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back(trim(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.emplace_back(trim(cell));
  return cells;
}

bool parseNumber(std::string_view text, double& value) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return false;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

bool isBlank(const std::string& line) {
  return trim(line).empty();
}

// The first non-blank line, without a UTF-8 byte order mark; `line_number` is set to its 1-based number.
bool readHeaderLine(std::ifstream& in, std::string& line, int64_t& line_number) {
  line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line_number == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    if (!isBlank(line)) return true;
  }
  return false;
}

std::ifstream openCsv(const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    throw DataError(file + ": cannot open the CSV file (missing or unreadable)",
                    "check data.path (or data.test_path)");
  }
  return in;
}

std::string joinNames(const std::vector<std::string>& names) {
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : ", ") + name;
  return joined;
}

}  // namespace

std::vector<std::string> readCsvHeader(const std::string& file) {
  std::ifstream in = openCsv(file);
  std::string line;
  int64_t line_number = 0;
  if (!readHeaderLine(in, line, line_number)) {
    throw DataError(file + ": is empty; expected a header line naming the columns, then one row per sample",
                    "check that data.path is the right file");
  }
  return splitCsvLine(line);
}

namespace {

// The label column's index: exactly one column has its name, and at least one other holds features.
int64_t labelColumnIndex(const std::string& file, const std::vector<std::string>& header,
                         const std::string& label_column) {
  const auto columns = static_cast<int64_t>(header.size());
  int64_t label_index = -1;
  for (int64_t c = 0; c < columns; ++c) {
    if (header[c] != label_column) continue;
    if (label_index >= 0) {
      throw DataError(file + ": has two columns named '" + label_column + "'", "rename one of them");
    }
    label_index = c;
  }
  if (label_index < 0) {
    throw DataError(file + ": has no column '" + label_column + "' (columns: " + joinNames(header) + ")",
                    "set data.label_column to the column that holds the class");
  }
  if (columns < 2) {
    throw DataError(file + ": has only the label column '" + label_column + "' and no feature columns",
                    "add numeric feature columns");
  }
  return label_index;
}

}  // namespace

CsvData readCsv(const std::string& file, const std::string& label_column) {
  std::ifstream in = openCsv(file);
  std::string line;
  int64_t line_number = 0;
  if (!readHeaderLine(in, line, line_number)) {
    throw DataError(file + ": is empty; expected a header line naming the columns, then one row per sample",
                    "check that data.path is the right file");
  }
  const std::vector<std::string> header = splitCsvLine(line);
  const auto columns = static_cast<int64_t>(header.size());

  const int64_t label_index = labelColumnIndex(file, header, label_column);

  CsvData data;
  for (int64_t c = 0; c < columns; ++c) {
    if (c == label_index) continue;
    data.feature_names.push_back(header[c].empty() ? "column " + std::to_string(c + 1) : header[c]);
  }
  const int64_t features = columns - 1;

  std::vector<float> values;
  std::vector<int64_t> labels;
  int64_t max_label = -1;
  while (std::getline(in, line)) {
    ++line_number;
    if (isBlank(line)) continue;
    const std::vector<std::string> cells = splitCsvLine(line);
    if (static_cast<int64_t>(cells.size()) != columns) {
      throw DataError(file + ": line " + std::to_string(line_number) + " has " +
                          std::to_string(cells.size()) + " cells but the header has " +
                          std::to_string(columns) + " columns",
                      "every row needs one value per column");
    }
    for (int64_t c = 0; c < columns; ++c) {
      const std::string where =
          file + ": line " + std::to_string(line_number) + ", column '" + header[c] + "': ";
      double value = 0.0;
      if (!parseNumber(cells[c], value)) {
        throw DataError(where + (cells[c].empty() ? std::string("empty cell") : "'" + cells[c] + "'") +
                            " is not a number",
                        "features and labels must be numbers; drop or encode text columns before training");
      }
      if (c == label_index) {
        if (value < 0 || value != std::floor(value) || value > kMaxLabel) {
          throw DataError(where + "'" + cells[c] + "' is not a class index",
                          "labels must be whole numbers 0, 1, 2, … (one per class)");
        }
        labels.push_back(static_cast<int64_t>(value));
        max_label = std::max(max_label, labels.back());
      } else {
        const auto stored = static_cast<float>(value);
        if (!std::isfinite(stored)) {
          throw DataError(where + "'" + cells[c] + "' is not a finite 32-bit number",
                          "replace missing or infinite values before training");
        }
        values.push_back(stored);
      }
    }
  }
  const auto rows = static_cast<int64_t>(labels.size());
  if (rows == 0) {
    throw DataError(file + ": has a header but no data rows", "check that data.path is the right file");
  }

  data.split.inputs = torch::from_blob(values.data(), {rows, features}, torch::kFloat32).clone();
  data.split.labels = torch::from_blob(labels.data(), {rows}, torch::kLong).clone();
  data.num_classes = max_label + 1;
  return data;
}

}  // namespace wb
