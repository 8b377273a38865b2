#pragma once
// Exporting a run's model, or one of its compressed artifacts, into files other tools load: TorchScript (.pt,
// torch.jit.load in Python and LibTorch), ONNX (.onnx, ONNX Runtime and friends) and safetensors (weights).
// Every file carries the input shape, the normalization, the class names, the experiment's name and the
// artifact's history. Plain C++: the window and the CLI include this without Torch.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wb {

enum class ExportFormat { TorchScript, Onnx, Safetensors };

const char* toString(ExportFormat format);  // "torchscript", "onnx", "safetensors"
// false for a name that is none of them.
bool exportFormatFromString(const std::string& name, ExportFormat& format);

struct ExportRequest {
  std::string run_dir;
  std::string artifact;  // "" = the run's trained model; else "compressed/NN-<pass>" (relative to run_dir)
  ExportFormat format = ExportFormat::TorchScript;
  std::string out;  // the file to write; replaced atomically (an existing file is never left half written)
  // The run's own model of a run that did not finish (interrupted, or no summary): refused unless this is
  // set; then exported, and ExportResult::note says which step it is from.
  bool allow_unfinished = false;
};

struct ExportResult {
  std::string
      note;  // "" for a trained model; else what the model is ("the run is interrupted at step 45 ...")
  std::string file;
  int64_t bytes = 0;
  double seconds = 0;
  std::string python_snippet;  // the few lines that load the file in Python
  std::string cpp_snippet;     // ... and in C++
};

// Writes the file. Throws wb::UserError (nothing written) when the run or artifact is missing or damaged,
// when the run failed or (without allow_unfinished) did not finish, or when the format cannot express a layer
// (naming the layer and the formats that can take it). `progress` (optional) hears 0..1 as the work advances;
// it is called on the calling thread.
ExportResult exportModel(const ExportRequest& request, const std::function<void(double)>& progress = {});

// Whether this build can write `format` ("" when it can; else why not, e.g. built without ONNX).
std::string exportUnavailable(ExportFormat format);

}  // namespace wb
