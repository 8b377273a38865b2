// Fuzz target: the CIFAR-10 binary reader (data_batch_N.bin, test_batch.bin). The input is one or more batch
// files cut by a separator line "%%" (fuzz_support.h), read as one split the way the dataset loader reads the
// five training batches.
// Promise: a DataError naming the file, or [N, 3, 32, 32] images with N labels in 0..9 — never a crash.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset_readers.h"
#include "fuzz_support.h"
#include "workbench/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wb;
  if (size > 512 * 1024) return 0;
  const std::vector<std::string> parts = fuzz::splitParts(data, size);
  std::vector<std::string> files;
  for (size_t i = 0; i < parts.size() && i < 5; ++i) {
    const auto file = fuzz::scratchDir() / ("data_batch_" + std::to_string(i + 1) + ".bin");
    fuzz::writeFile(file, parts[i]);
    files.push_back(file.string());
  }
  try {
    const RawSplit split = readCifar10(files);
    if (split.inputs.dim() != 4 || split.inputs.size(1) != 3 || split.inputs.size(2) != 32 ||
        split.inputs.size(3) != 32) {
      fuzz::fuzzFail("CIFAR-10 images are not [N, 3, 32, 32]");
    }
    if (split.labels.size(0) != split.inputs.size(0)) fuzz::fuzzFail("labels and images disagree in number");
    if (split.labels.numel() > 0 &&
        (split.labels.min().item<int64_t>() < 0 || split.labels.max().item<int64_t>() > 9)) {
      fuzz::fuzzFail("a CIFAR-10 label outside 0..9 was accepted");
    }
  } catch (const DataError& error) {
    fuzz::expectMessage(error);
  }
  return 0;
}
