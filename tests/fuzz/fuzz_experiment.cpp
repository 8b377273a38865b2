// Fuzz target: an experiment file as the CLI and the window read it (loadExperimentFile: JSON text, then
// every check that needs no Torch), and the promise that a valid experiment written back out
// (experimentToJson, what a run folder stores) reads back valid and unchanged.

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "fuzz_support.h"
#include "workbench/experiment.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wb;
  if (size > 64 * 1024) return 0;  // experiment files are small; larger inputs only slow the search
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::filesystem::path file = fuzz::scratchDir() / "experiment.json";
  fuzz::writeFile(file, text);

  const ParseResult parsed = loadExperimentFile(file.string());
  const std::string message = formatIssues(parsed.issues);
  if (!parsed.ok()) {
    if (message.empty()) fuzz::fuzzFail("issues without a message");
    return 0;
  }

  const nlohmann::json written = experimentToJson(parsed.experiment);
  const ParseResult reread = parseExperiment(written);
  if (!reread.ok()) {
    fuzz::fuzzFail("a valid experiment written back reads as invalid:\n" + formatIssues(reread.issues) +
                   "\n" + written.dump(2));
  }
  const nlohmann::json rewritten = experimentToJson(reread.experiment);
  if (rewritten != written) {
    fuzz::fuzzFail("experimentToJson is not stable: " + describeChanges(diffExperiments(written, rewritten)));
  }
  // What a resume compares: the file as given against the file as stored.
  const nlohmann::json original = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!original.is_discarded()) describeChanges(diffExperiments(original, written));
  return 0;
}
