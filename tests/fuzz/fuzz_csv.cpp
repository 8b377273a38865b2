// Fuzz target: the CSV reader (numeric feature columns, one integer label column, a header line). The input
// is the label column's name, a separator line "%%" (fuzz_support.h), then the file; without a separator the
// label column is "label".
// Promise: a DataError naming the file, or a table whose shapes, names and class count agree — never a crash.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset_readers.h"
#include "fuzz_support.h"
#include "workbench/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wb;
  if (size > 256 * 1024) return 0;
  std::vector<std::string> parts = fuzz::splitParts(data, size);
  std::string label_column = "label";
  std::string text = parts[0];
  if (parts.size() > 1) {
    label_column = parts[0];
    text = parts[1];
  }
  const auto file = fuzz::scratchDir() / "table.csv";
  fuzz::writeFile(file, text);
  try {
    (void)readCsvHeader(file.string());
  } catch (const DataError& error) {
    fuzz::expectMessage(error);
  }
  try {
    const CsvData csv = readCsv(file.string(), label_column);
    const RawSplit& split = csv.split;
    if (split.inputs.dim() != 2 || split.labels.dim() != 1 || split.inputs.size(0) != split.labels.size(0)) {
      fuzz::fuzzFail("CSV features and labels are not [N, F] and [N]");
    }
    if (static_cast<int64_t>(csv.feature_names.size()) != split.inputs.size(1)) {
      fuzz::fuzzFail("feature names and feature columns disagree");
    }
    if (split.labels.numel() > 0) {
      const int64_t low = split.labels.min().item<int64_t>();
      const int64_t high = split.labels.max().item<int64_t>();
      if (low < 0 || high >= csv.num_classes) fuzz::fuzzFail("a label outside 0..num_classes-1 was accepted");
    }
    if (split.inputs.numel() > 0 && !split.inputs.isfinite().all().item<bool>()) {
      fuzz::fuzzFail("a non-finite feature was accepted");
    }
  } catch (const DataError& error) {
    fuzz::expectMessage(error);
  }
  return 0;
}
