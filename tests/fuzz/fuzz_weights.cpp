// Fuzz target: the weights readers (backend/src/weights: safetensors, torch.save's zip with its restricted
// unpickler, the format sniffing). The first input byte chooses the mode:
//   0: the rest is a weights file, read by readWeightsFile (zip archives through LibTorch's reader)
//   1: the rest is a data.pkl pickle, put with a 64-byte storage data/0 into a torch.save-style archive
//      (LibTorch's PyTorchStreamWriter) and read by readTorchZipFile: the search goes straight at the
//      unpickler
//   2: the rest is a safetensors file, read from memory by readSafetensorsBytes
// Promise: a UserError with a message, or tensors whose every element can be read (a view outside its storage
// would be caught by AddressSanitizer) — never a crash, never a pickled call run. TorchScript archives
// (an entry constants.pkl) are skipped: they go to torch::jit::load, LibTorch's loader, not ours.

#include <torch/torch.h>
// LibTorch's zip reader only after torch.h: clang needs c10::IValue complete first.
#include <caffe2/serialize/inline_container.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "weights/weights_reader.h"
#include "workbench/errors.h"

namespace {

void touchEveryElement(const wb::WeightsFileContents& contents) {
  for (const auto& [name, tensor] : contents.tensors) {
    if (name.empty() && contents.format != wb::WeightsFormat::TorchZip)
      wb::fuzz::fuzzFail("a tensor without a name");
    (void)tensor.to(torch::kFloat64).sum().item<double>();
  }
}

void writeTorchArchive(const std::string& path, const std::string& pickle) {
  caffe2::serialize::PyTorchStreamWriter writer(path);
  writer.writeRecord("data.pkl", pickle.data(), pickle.size());
  const std::string storage(64, '\x01');
  writer.writeRecord("data/0", storage.data(), storage.size());
  writer.writeRecord("byteorder", "little", 6);
  writer.writeEndOfFile();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wb;
  if (size < 1 || size > 256 * 1024) return 0;
  const uint8_t mode = data[0] % 3;
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string path = (fuzz::scratchDir() / "weights.bin").string();
  try {
    if (mode == 2) {
      touchEveryElement(readSafetensorsBytes(body, "fuzz.safetensors"));
    } else if (mode == 1) {
      writeTorchArchive(path, body);
      touchEveryElement(readTorchZipFile(path));
    } else {
      // TorchScript archives go to LibTorch's own loader (torch::jit::load), which is not ours to fuzz.
      if (body.find("constants.pkl") != std::string::npos) return 0;
      fuzz::writeFile(path, body);
      touchEveryElement(readWeightsFile(path));
    }
  } catch (const UserError& error) {
    fuzz::expectMessage(error);
  }
  return 0;
}
