// loadExperimentFile: the file-level problems (missing, unreadable, not JSON) become issues with an empty
// path, worded so the user knows which file and where in it.

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "workbench/experiment.h"

namespace wb {
namespace {

ParseResult fileIssue(const std::string& message) {
  ParseResult result;
  result.issues.push_back(ValidationIssue{"", message});
  return result;
}

// nlohmann's message reads "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error
// while parsing object key - unexpected '}'; expected string literal"; the user needs only the part after the
// position, since the position is given in the file:line:column form editors understand.
std::string parseErrorReason(const std::string& what) {
  const size_t column = what.find("column");
  const size_t colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// nlohmann reports the byte offset just past the character where parsing failed.
void lineAndColumn(const std::string& text, size_t byte, size_t& line, size_t& column) {
  const size_t end = std::min(byte == 0 ? 0 : byte - 1, text.size());
  line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  }
  column = end - lineStart + 1;
}

}  // namespace

ParseResult loadExperimentFile(const std::string& file) {
  std::error_code error;
  if (!std::filesystem::exists(file, error)) {
    return fileIssue("experiment file \"" + file +
                     "\" does not exist: check the path, or give no file to train the default experiment");
  }
  if (std::filesystem::is_directory(file, error)) {
    return fileIssue("experiment file \"" + file + "\" is a folder: give the path of a .json file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    return fileIssue("cannot open experiment file \"" + file + "\": " + std::strerror(errno));
  }
  std::ostringstream content;
  content << in.rdbuf();
  const std::string text = content.str();

  nlohmann::json doc;
  try {
    // Plain JSON, no comments: the CLI reads the same file with nlohmann's defaults to apply --set overrides,
    // and the two readers must agree on what a valid file is.
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    size_t line = 0;
    size_t column = 0;
    lineAndColumn(text, e.byte, line, column);
    return fileIssue(file + ":" + std::to_string(line) + ":" + std::to_string(column) +
                     ": not valid JSON: " + parseErrorReason(e.what()) +
                     ". Fix the file at that place: a missing or extra comma, a missing quote or an unclosed "
                     "bracket is the usual cause");
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double's range (such as 1e400) is not a syntax error: nlohmann throws out_of_range
    // 406, with no position. Found by tests/fuzz/fuzz_experiment.cpp; uncaught, it ended the CLI with
    // terminate().
    const std::string what = e.what();  // "[json.exception.out_of_range.406] number overflow parsing '1e400'"
    const size_t tag = what.find("] ");
    return fileIssue(file + ": not valid JSON: " + (tag == std::string::npos ? what : what.substr(tag + 2)) +
                     ". Write numbers within a double's range (about 1e308 at most)");
  }
  return parseExperiment(doc);
}

}  // namespace wb
