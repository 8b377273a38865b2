// Fuzz target: `--set key.path=value` overrides. Each input line is one assignment, applied in order (as the
// CLI does) to an empty document (no experiment file) and to the complete default experiment (a run folder's
// experiment.json); the result then goes through the parser. A rejected override must leave the document as
// it was.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "workbench/experiment.h"

namespace {

void applyAll(nlohmann::json doc, const std::vector<std::string>& assignments) {
  using namespace wb;
  for (const std::string& assignment : assignments) {
    const nlohmann::json before = doc;
    const std::vector<ValidationIssue> issues = applyOverride(doc, assignment);
    if (!issues.empty()) {
      if (doc != before) fuzz::fuzzFail("a rejected override changed the document: " + assignment);
      if (formatIssues(issues).empty()) fuzz::fuzzFail("issues without a message");
    }
  }
  const ParseResult parsed = parseExperiment(doc);
  if (parsed.ok()) {
    const ParseResult reread = parseExperiment(experimentToJson(parsed.experiment));
    if (!reread.ok()) fuzz::fuzzFail("a valid experiment written back reads as invalid: " + doc.dump());
  } else {
    formatIssues(parsed.issues);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // a command line's worth
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::vector<std::string> assignments;
  std::string line;
  while (std::getline(in, line) && assignments.size() < 16) assignments.push_back(line);
  applyAll(nlohmann::json::object(), assignments);
  applyAll(wb::experimentToJson(wb::Experiment{}), assignments);
  return 0;
}
