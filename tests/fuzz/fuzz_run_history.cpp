// Fuzz target: a run folder read back as the `runs` commands and the window's runs browser do
// (loadRunHistory). The input holds the folder's files cut by separator lines "%%" (fuzz_support.h):
// experiment.json, metrics.jsonl, summary.json, in that order. An empty first part stands for the default
// experiment, so that the search reaches the metrics and the summary without first writing a valid
// experiment; a missing part is a missing file.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "workbench/errors.h"
#include "workbench/experiment.h"
#include "workbench/run_history.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  using namespace wb;
  if (size > 256 * 1024) return 0;
  const std::vector<std::string> parts = fuzz::splitParts(data, size);
  const fs::path dir = fuzz::scratchDir() / "run";
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);

  static const std::string defaultExperiment = experimentToJson(Experiment{}).dump(2);
  fuzz::writeFile(dir / "experiment.json", parts[0].empty() ? defaultExperiment : parts[0]);
  if (parts.size() > 1) fuzz::writeFile(dir / "metrics.jsonl", parts[1]);
  if (parts.size() > 2) fuzz::writeFile(dir / "summary.json", parts[2]);

  try {
    const RunHistory history = loadRunHistory(dir.string());
    // What the window and `runs show` do next with it.
    experimentToJson(history.experiment);
    for (const LogLine& log : history.logs) (void)log.text.size();
  } catch (const UserError& error) {
    if (std::string(error.what()).empty()) fuzz::fuzzFail("a UserError without a message");
  }
  return 0;
}
