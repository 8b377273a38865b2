#pragma once
// The small real run the export tests share: a conv net with batch norm and a residual block trained on a
// Fashion-MNIST subset, and its artifacts made by the passes directly.

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "compress/channel_pruning.h"
#include "compress/model_artifact.h"
#include "compress/quantization.h"
#include "data/dataset.h"
#include "support/test_experiments.h"
#include "workbench/training_run.h"

namespace wb::test {

// The run all export tests share (this file's and the safetensors tests' make the same one; whichever runs
// first trains it, the other reuses the folder): compressed/01-prune (structured 50%), 02-quantize (static
// int8 of it), 03-quantize (dynamic int8 of the original).
inline std::string sharedExportRun() {
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("wb-test-export-" + std::to_string(::getpid()));
  const std::filesystem::path ready = root / "ready";
  if (std::filesystem::exists(ready)) {
    std::ifstream in(ready);
    std::string run;
    std::getline(in, run);
    return run;
  }
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root);
  static std::string s_root;
  s_root = root.string();
  std::atexit([] { std::filesystem::remove_all(s_root); });
  Experiment e = smallMlpExperiment(root.string());
  e.name = "export-cnn";
  e.train.epochs = 1;
  e.model.preset = "";
  e.model.layers = nlohmann::json::parse(R"([
    {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1}, {"type": "batchnorm2d"},
    {"type": "relu"}, {"type": "maxpool2d", "kernel_size": 2},
    {"type": "residual", "layers": [
      {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1, "bias": false}, {"type": "batchnorm2d"},
      {"type": "relu"},
      {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1, "bias": false}, {"type": "batchnorm2d"}]},
    {"type": "relu"},
    {"type": "conv2d", "out_channels": 16, "kernel_size": 3, "padding": 1}, {"type": "relu"},
    {"type": "avgpool2d", "kernel_size": 2}, {"type": "flatten"},
    {"type": "linear", "out_features": 64}, {"type": "relu"}, {"type": "dropout", "p": 0.2},
    {"type": "linear", "out_features": 10}])");
  const RunSummary s = trainBlocking(e, [](EventBatch&&) {});
  if (s.status != RunStatus::Completed) throw std::runtime_error("test: the export run did not train");
  // The passes called directly (not through CompressionRun, which also measures every artifact).
  auto pass = [](const std::string& text) {
    const ParseResult r = parseExperiment(
        nlohmann::json{{"compress", {{"passes", nlohmann::json::array({nlohmann::json::parse(text)})}}}});
    if (!r.ok()) throw std::runtime_error("test: " + formatIssues(r.issues));
    return r.experiment.compress.passes.at(0);
  };
  const Dataset data = loadDataset(e.data, e.seed);
  int64_t next = 0;
  auto calibration = [&]() -> std::optional<torch::Tensor> {
    if (next + 64 > data.train.x.size(0)) return std::nullopt;
    next += 64;
    return data.train.x.slice(0, next - 64, next);
  };
  auto save = [&](ModelArtifact a, const std::string& name, const std::string& source,
                  const nlohmann::json& record) {
    a.name = name;
    a.source = source;
    a.history.push_back(record);
    saveArtifact(a, s.run_dir + "/compressed/" + name);
    return a;
  };
  const ModelArtifact original = loadRunModel(s.run_dir, data.sample_shape, data.num_classes);
  nlohmann::json record;
  const ModelArtifact pruned = save(
      pruneChannels(original, pass(R"({"type": "prune", "method": "structured", "amount": 0.5})"), record),
      "01-prune", "original", record);
  auto log = [](const std::string&) {};
  save(quantizeArtifact(pruned, pass(R"({"type": "quantize", "mode": "static", "calibration_batches": 4})"),
                        calibration, log)
           .artifact,
       "02-quantize", "01-prune", {{"pass", "quantize"}, {"mode", "static"}});
  save(quantizeArtifact(original, pass(R"({"type": "quantize", "mode": "dynamic"})"), calibration, log)
           .artifact,
       "03-quantize", "original", {{"pass", "quantize"}, {"mode", "dynamic"}});
  std::ofstream(ready) << s.run_dir << "\n";
  return s.run_dir;
}

}  // namespace wb::test
