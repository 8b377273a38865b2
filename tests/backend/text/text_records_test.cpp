// Labelled texts read back as Python's csv and json modules wrote them (coreutils' messages: commas, quotes
// and line breaks inside texts, CRLF line ends), and the rows that cannot be samples named with their line; a
// missing column refused with the file's columns and the likely one.

#include "text/text_records.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/temporary_folder.h"
#include "workbench/errors.h"

namespace text_records_test {
namespace {

using wb::text::openTextRecords;
using wb::text::TextColumns;
using wb::text::TextRecord;

std::vector<TextRecord> readAll(const std::string& path, const TextColumns& columns = {}) {
  std::vector<TextRecord> records;
  auto reader = openTextRecords(path, columns);
  for (TextRecord record; reader->next(record);) records.push_back(record);
  return records;
}

std::string refusal(const std::string& path, const TextColumns& columns = {}) {
  try {
    readAll(path, columns);
  } catch (const wb::DataError& e) {
    return std::string(e.what()) + " | " + e.hint();
  }
  return "";
}

void write(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

TEST(TextRecords, CsvTsvAndJsonLinesReadAsPythonWroteThem) {
  wb::test::TemporaryFolder folder("text-records");
  const std::string dir = folder.path();
  const std::string command =
      std::string(WB_SENTENCEPIECE_PYTHON) + " " + WB_SOURCE_DIR + "/tests/python/write_text_table.py " + dir;
  ASSERT_EQ(std::system(command.c_str()), 0);
  const auto expected = nlohmann::json::parse(std::ifstream(dir + "/expected.json"));
  ASSERT_GT(expected.size(), 1000u);
  for (const char* name : {"texts.csv", "texts.tsv", "texts.jsonl"}) {
    const std::vector<TextRecord> records = readAll(dir + "/" + name);
    ASSERT_EQ(records.size(), expected.size()) << name;
    int differing = 0;
    for (size_t i = 0; i < records.size(); ++i) {
      const bool same = records[i].text == expected[i][0].get<std::string>() &&
                        records[i].label == expected[i][1].get<std::string>() && records[i].problem.empty();
      if (!same && ++differing <= 3) {
        ADD_FAILURE() << name << " record " << i << " (" << records[i].where << "): '" << records[i].text
                      << "' " << records[i].label << " " << records[i].problem << "\n  expected "
                      << expected[i];
      }
    }
    EXPECT_EQ(differing, 0) << name;
  }
}

TEST(TextRecords, RowsThatCannotBeSamplesAreNamedWithTheirLine) {
  wb::test::TemporaryFolder folder("text-bad-rows");
  const std::string dir = folder.path();
  write(dir + "/t.csv",
        "\xEF\xBB\xBFtext,pair,label\r\n"
        "\"a, \"\"quoted\"\"\ntext\",second,pos\r\n"
        "\r\n"
        "no label,second,\r\n"
        "  ,second,neg\r\n"
        "caf\xe9,second,neg\r\n"
        "too few\r\n"
        "fine,,neg\r\n"
        "last,second,neg\r\n");
  const auto records = readAll(dir + "/t.csv", {"text", "pair", "label"});
  ASSERT_EQ(records.size(), 7u);
  EXPECT_EQ(records[0].text, "a, \"quoted\"\ntext");
  EXPECT_EQ(records[0].pair, "second");
  EXPECT_EQ(records[0].label, "pos");
  EXPECT_EQ(records[0].where, "t.csv, line 2");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"t.csv, line 5", "no label"},
      {"t.csv, line 6", "an empty text"},
      {"t.csv, line 7", "not UTF-8 (save the file as UTF-8)"},
      {"t.csv, line 8", "1 cells where the header has 3"},
      {"t.csv, line 9", "an empty second text"}};
  for (size_t i = 0; i < bad.size(); ++i) {
    EXPECT_EQ(records[i + 1].where, bad[i].first);
    EXPECT_EQ(records[i + 1].problem, bad[i].second);
  }
  EXPECT_EQ(records[6].where, "t.csv, line 10");
  EXPECT_EQ(records[6].problem, "");
  write(dir + "/t.jsonl", "{\"sentence\": \"good\", \"y\": 3}\n{broken\n\n{\"sentence\": \"\", \"y\": 1}\n");
  const auto lines = readAll(dir + "/t.jsonl", {"sentence", "", "y"});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].label, "3");
  EXPECT_EQ(lines[1].problem, "not a JSON object");
  EXPECT_EQ(lines[2].where, "t.jsonl, line 4");
  EXPECT_EQ(lines[2].problem, "an empty text");
}

TEST(TextRecords, AClassFolderOfTxtFilesIsOneTextAFile) {
  wb::test::TemporaryFolder folder("text-folder");
  const std::string dir = folder.path();
  std::filesystem::create_directories(dir + "/neg");
  std::filesystem::create_directories(dir + "/pos/more");
  write(dir + "/neg/a.txt", "bad\nmovie");
  write(dir + "/pos/b.txt", "good");
  write(dir + "/pos/more/c.txt", "");
  write(dir + "/pos/notes.md", "not a sample");
  const auto records = readAll(dir);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].label, "neg");
  EXPECT_EQ(records[0].text, "bad\nmovie");
  EXPECT_EQ(records[2].where, dir + "/pos/more/c.txt");
  EXPECT_EQ(records[2].problem, "an empty text");
}

TEST(TextRecords, AFileWithoutTheColumnsIsRefusedNamingThem) {
  wb::test::TemporaryFolder folder("text-columns");
  const std::string dir = folder.path();
  write(dir + "/t.csv", "review,sentiment\ngood,pos\n");
  EXPECT_EQ(refusal(dir + "/t.csv", {"review", "", "sentimnt"}),
            dir +
                "/t.csv: no column 'sentimnt' (data.text.label_column); its columns are review, sentiment | "
                "did you mean 'sentiment'? (data.text.label_column)");
  write(dir + "/t.jsonl", "{\"review\": \"good\"}\n");
  EXPECT_NE(
      refusal(dir + "/t.jsonl").find("no column 'text' (data.text.text_column); its columns are review"),
      std::string::npos);
  write(dir + "/empty.csv", "");
  EXPECT_NE(refusal(dir + "/empty.csv").find("empty.csv: the file is empty"), std::string::npos);
  write(dir + "/t.xlsx", "");
  EXPECT_NE(refusal(dir + "/t.xlsx").find("not a kind of text file this workbench reads"), std::string::npos);
  std::filesystem::create_directories(dir + "/nothing/here");
  EXPECT_NE(refusal(dir + "/nothing").find("no .txt files in class subfolders"), std::string::npos);
}

}  // namespace
}  // namespace text_records_test
