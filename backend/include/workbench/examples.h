#pragma once
// The example experiments a user starts from (resources/examples, installed to
// share/torch-workbench/examples): File ▸ New from Example in the window, `workbench-cli examples` and
// `--example NAME` in the CLI.

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace wb {

struct ExampleInfo {
  std::string id;           // the file's name without .json: "cnn", "csv-spirals"
  std::string file;         // the experiment file's full path
  std::string title;        // "CNN on Fashion-MNIST"
  std::string description;  // a sentence or two: what it trains and what it shows
};

// The examples of `dir` (examplesDir() when empty) in the order its index.json lists them. Throws UserError
// naming the folder when there is none, or the index when it cannot be read.
std::vector<ExampleInfo> listExamples(const std::string& dir = {});

// The example with this id among `examples`; nullopt when none has it.
std::optional<ExampleInfo> findExample(const std::string& id, const std::vector<ExampleInfo>& examples);

// The example's experiment document with its relative paths (data.path, data.test_path, model.torchscript)
// made absolute against the example's folder: experiment paths are relative to the working folder, and this
// way the example trains from anywhere and a copy saved elsewhere still finds its data. Throws UserError when
// the file cannot be read.
nlohmann::json loadExampleDocument(const ExampleInfo& example);

}  // namespace wb
