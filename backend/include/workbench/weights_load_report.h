#pragma once
// What loading model.weights did (issue 40): every tensor of the model and of the file accounted for by name,
// in the names the outside world uses (torchvision's for the standard architectures), so the run log, `check`
// and the Model tab can say exactly what was loaded and what was not. Plain C++: the CLI and the window
// include it.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

struct WeightsShapeMismatch {
  std::string name;
  std::vector<int64_t> ours;
  std::vector<int64_t> file;
};

struct WeightsLoadReport {
  std::string weights;             // model.weights as given
  std::string file;                // the file read (a run folder's model.pt or checkpoint)
  std::string format;              // "safetensors", "torch-zip", "torchscript", "workbench-checkpoint"
  std::vector<std::string> notes;  // the reader's (wrappers unwrapped, entries skipped) and ours (dtypes)
  std::string prefix;              // stripped from the file's names; "" none
  bool prefix_detected = false;    // found by matching, not given in model.weights_prefix
  int64_t model_tensors = 0;       // parameters and buffers of the model
  int64_t file_tensors = 0;
  std::vector<std::string> loaded;
  std::vector<std::string> missing;     // in the model, not in the file: left at their initialization
  std::vector<std::string> unexpected;  // in the file, not in the model: not used
  std::vector<WeightsShapeMismatch> mismatched;  // not loaded
  // The classifier head left at its fresh initialization because the class count changed (or the file has
  // no head): its tensors, our class count and the file's (0 when the file has none).
  std::vector<std::string> new_head;
  int64_t head_classes = 0;
  int64_t file_head_classes = 0;
};

// "loaded 60 of 62 tensors from r18.safetensors (safetensors), prefix \"module.\" stripped".
std::string weightsLoadSummary(const WeightsLoadReport& report);
// "new head: 10 classes (the file's has 1000)"; "" when the head was loaded.
std::string weightsLoadHeadLine(const WeightsLoadReport& report);
// The summary, the head line, the notes, then what was not loaded, by name (at most `limit` names a list).
std::vector<std::string> weightsLoadLines(const WeightsLoadReport& report, size_t limit = 10);
// Every list in full (a run folder's weights_load.json).
nlohmann::json weightsLoadToJson(const WeightsLoadReport& report);

// Builds the experiment's model on the CPU as a run does (its seed, the data's shape and classes) and loads
// model.weights into it: the report a run would print. Throws UserError naming model.weights' file and the
// tensors when they do not fit (and model.weights_mismatch is refuse), or when the file cannot be read.
// Requires a non-empty model.weights.
WeightsLoadReport previewWeightsLoad(const Experiment& experiment);

}  // namespace wb
