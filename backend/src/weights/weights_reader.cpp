#include "weights/weights_reader.h"

#include <caffe2/serialize/inline_container.h>

#include <cstring>
#include <fstream>

#include "workbench/errors.h"

namespace wb {

std::string weightsFormatWord(WeightsFormat format) {
  switch (format) {
    case WeightsFormat::Safetensors:
      return "safetensors";
    case WeightsFormat::TorchZip:
      return "torch-zip";
    case WeightsFormat::TorchScript:
      return "torchscript";
  }
  return "?";
}

namespace {

// A TorchScript archive holds constants.pkl and code/ beside data.pkl; torch.save's holds neither.
bool wrIsTorchScript(const std::string& file) {
  try {
    caffe2::serialize::PyTorchStreamReader archive(file);
    return archive.hasRecord("constants.pkl");
  } catch (const c10::Error&) {
    return false;  // readTorchZipFile says what is wrong with it
  }
}

}  // namespace

WeightsFileContents readWeightsFile(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(file + ": cannot open the weights file", "check the path and its permissions");
  unsigned char head[9] = {};
  in.read(reinterpret_cast<char*>(head), sizeof head);
  const auto got = static_cast<size_t>(in.gcount());
  if (got >= 4 && std::memcmp(head, "PK\x03\x04", 4) == 0)
    return wrIsTorchScript(file) ? readTorchScriptFile(file) : readTorchZipFile(file);
  if (got >= 2 && head[0] == 0x80 && head[1] <= 5) {
    throw UserError(file +
                        " is in torch.save's legacy format (before torch 1.6), which is read only by running "
                        "its pickle",
                    "load it in Python and save it again with a newer torch (torch.save(state_dict, f, "
                    "_use_new_zipfile_serialization=True)), or as safetensors");
  }
  uint64_t length = 0;
  for (int i = 7; i >= 0 && got == 9; --i) length = (length << 8) | head[i];
  if (got == 9 && head[8] == '{' && length >= 2 && length <= kMaxSafetensorsHeaderBytes)
    return readSafetensorsFile(file);
  throw UserError(
      file + " is neither a safetensors file nor a torch.save zip archive",
      "weights are read from .safetensors files and from torch.save(model.state_dict(), f) files");
}

}  // namespace wb
