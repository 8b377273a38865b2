#pragma once
// Reading the weights files people have (issue 40): safetensors (what the Hugging Face hub and timm ship) and
// the zip checkpoints torch.save has written since torch 1.6, read without Python and without executing
// pickled code; a TorchScript archive gives its parameters and buffers through LibTorch's own loader. Nothing
// in a file is trusted: every length, offset, shape and stride is checked against the file before a byte is
// copied, and each failure is a UserError naming the file and, where there is one, the tensor.

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace wb {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;  // as in model/weights_file.h

enum class WeightsFormat { Safetensors, TorchZip, TorchScript };

// "safetensors", "torch-zip", "torchscript".
std::string weightsFormatWord(WeightsFormat format);

struct WeightsFileContents {
  WeightsFormat format = WeightsFormat::Safetensors;
  // In the file's order, CPU tensors; names are unique. A torch.save file's tensors that shared one storage
  // there are views of one storage here too (strided, at an offset), as torch.load gives them.
  NamedTensors tensors;
  // What was read differently from "every entry is a tensor": a wrapper unwrapped, entries skipped (not
  // tensors), one line each, for the load report.
  std::vector<std::string> notes;
  // safetensors' "__metadata__" (string -> string); empty for the other formats.
  std::map<std::string, std::string> metadata;
};

// Picks the reader by the file's first bytes: "PK\3\4" a zip (torch.save's, or a TorchScript archive),
// otherwise a safetensors header (a plausible length, then '{'). The legacy torch.save format (before 1.6,
// or _use_new_zipfile_serialization=False) and anything else are refused with what to do.
WeightsFileContents readWeightsFile(const std::string& file);

// The readers on their own. `file` names the file in messages.
WeightsFileContents readSafetensorsFile(const std::string& file);
WeightsFileContents readSafetensorsBytes(const std::string& bytes, const std::string& file);
WeightsFileContents readTorchZipFile(const std::string& file);
WeightsFileContents readTorchScriptFile(const std::string& file);

// Limits that keep a lying file from making us allocate what it cannot fill.
constexpr uint64_t kMaxSafetensorsHeaderBytes = 100ull << 20;
constexpr int kMaxTensorDims = 64;

}  // namespace wb
