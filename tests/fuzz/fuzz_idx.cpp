// Fuzz target: the IDX reader (MNIST, Fashion-MNIST), plain or gzip-compressed, as the dataset loader calls
// it (readIdxImageHeader for the catalog, then readIdx). The input is the images file and the labels file cut
// by a separator line "%%" (fuzz_support.h). When the first byte is odd, both parts are gzip-compressed
// before they are written, so the search reaches the inflating path with valid streams too (an even first
// byte keeps them raw: a raw part that starts with 1f 8b is a damaged gzip stream). Promise: a DataError
// naming the file, or tensors whose shapes agree with each other — never a crash, never an allocation the
// files cannot fill (-rss_limit_mb catches that).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset_readers.h"
#include "fuzz_gzip.h"
#include "fuzz_support.h"
#include "workbench/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wb;
  if (size < 1 || size > 512 * 1024) return 0;
  const bool compress = (data[0] & 1) != 0;
  std::vector<std::string> parts = fuzz::splitParts(data + 1, size - 1);
  parts.resize(2);
  const auto images = fuzz::scratchDir() / "images-idx3-ubyte";
  const auto labels = fuzz::scratchDir() / "labels-idx1-ubyte";
  fuzz::writeFile(images, compress ? fuzz::gzipped(parts[0]) : parts[0]);
  fuzz::writeFile(labels, compress ? fuzz::gzipped(parts[1]) : parts[1]);

  try {
    const std::vector<int64_t> header = readIdxImageHeader(images.string());
    if (header.size() != 3) fuzz::fuzzFail("an image header without three dimensions");
  } catch (const DataError& error) {
    fuzz::expectMessage(error);
  }
  try {
    const RawSplit split = readIdx(images.string(), labels.string());
    if (split.inputs.dim() != 4 || split.inputs.size(1) != 1) fuzz::fuzzFail("images are not [N, 1, H, W]");
    if (split.labels.dim() != 1 || split.labels.size(0) != split.inputs.size(0)) {
      fuzz::fuzzFail("labels and images disagree in number");
    }
  } catch (const DataError& error) {
    fuzz::expectMessage(error);
  }
  return 0;
}
