#pragma once
// What a person says about a run, kept with it: its display name, tags and notes. They live in the run
// folder's run.json (so they travel with the folder and survive a deleted index) and are mirrored in the run
// index, which the runs list and `workbench-cli runs` read. Plain C++.

#include <optional>
#include <string>
#include <vector>

#include "workbench/experiment.h"

namespace wb {

struct RunInfo {
  std::string name;               // the display name; the folder keeps its own name
  std::vector<std::string> tags;  // short words ("baseline", "lr-sweep"), in the order given, no duplicates
  std::string notes;              // free text
};

// The name a run of this experiment gets: the experiment's `name` when the user wrote one, else its model
// and data ("cnn-fashion-mnist", "layers-csv", "torchscript-cifar10").
std::string experimentRunName(const Experiment& experiment);
// The model part of that name, as the runs list shows it: the preset, "layers", "torchscript", or a Hugging
// Face folder's name ("bert-base-uncased").
std::string experimentModelName(const Experiment& experiment);

// The display name of an unnamed experiment's run once the index has numbered it: "cnn-fashion-mnist-0007".
// A named experiment's runs keep the name as written.
std::string numberedRunName(const Experiment& experiment, int64_t run_number);

// run_dir/run.json; nullopt when the folder has none (runs from before run.json) or it is unreadable.
std::optional<RunInfo> readRunInfo(const std::string& run_dir);

// Writes run_dir/run.json atomically. Tags are trimmed, emptied ones and duplicates dropped. Throws
// wb::UserError (naming the file and why) when it cannot be written.
void writeRunInfo(const std::string& run_dir, const RunInfo& info);

// Tags as typed in a field: split on commas, trimmed, empty ones and duplicates dropped.
std::vector<std::string> parseTags(const std::string& text);

}  // namespace wb
