// A run that starts from model.weights (issue 40): the file is loaded after initialization and before the
// first step, the run log says what was loaded and weights_load.json lists it all; a resumed run continues
// from its checkpoint and never reads the file again.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/test_experiments.h"
#include "weights/weights_reader.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

// The layer list of tests/fixtures/weights_load (scripts/make_weights_load_fixtures.py), on synthetic
// [1, 4, 4] images in 5 classes, with a learning rate so small that training leaves the weights as loaded.
Experiment tinyWeightsExperiment(const std::string& runs, const std::string& weights) {
  Experiment e = test::smallMlpExperiment(runs);
  test::useSyntheticImages(e, 96, {1, 4, 4}, 5);
  e.model.layers = nlohmann::json::parse(R"([{"type": "conv2d", "out_channels": 4, "kernel_size": 3},
      {"type": "batchnorm2d"}, {"type": "relu"}, {"type": "flatten"}, {"type": "linear", "out_features": 5}])");
  e.model.weights = weights;
  e.optimizer.name = OptimizerName::Sgd;
  e.optimizer.lr = 1e-12;
  e.optimizer.weight_decay = 0;
  e.train.epochs = 2;
  e.train.batch_size = 16;
  e.train.log_every_steps = 1;
  e.train.checkpoint_every_steps = 2;
  e.train.threads = 1;
  return e;
}

std::string copyOfFixture(const std::string& dir) {
  const std::string copy = dir + "/tiny.pt";
  fs::copy_file(std::string(WB_SOURCE_DIR) + "/tests/fixtures/weights_load/tiny.pt", copy,
                fs::copy_options::overwrite_existing);
  return copy;
}

std::vector<std::string> logged;

TrainingRun::EventSink collectLog() {
  logged.clear();
  return [](EventBatch&& batch) {
    for (const Event& ev : batch) {
      if (const auto* l = std::get_if<LogLine>(&ev)) logged.push_back(l->text);
      if (const auto* err = std::get_if<RunError>(&ev)) logged.push_back("error: " + err->message);
    }
  };
}

bool loggedLine(const std::string& part) {
  for (const auto& line : logged)
    if (line.find(part) != std::string::npos) return true;
  return false;
}

TEST(WeightsStart, ARunStartsFromTheFileAndReportsIt) {
  const std::string runs = test::freshDir("weights-start");
  const std::string weights = copyOfFixture(runs);
  const RunSummary summary = trainBlocking(tinyWeightsExperiment(runs, weights), collectLog());
  ASSERT_EQ(summary.status, RunStatus::Completed);
  EXPECT_TRUE(
      loggedLine("weights: loaded 9 of 9 tensors of the model from " + weights + " (torch-zip, 9 tensors)"));
  std::ifstream in(summary.run_dir + "/weights_load.json");
  ASSERT_TRUE(in) << "no weights_load.json";
  const nlohmann::json report = nlohmann::json::parse(in);
  EXPECT_EQ(report["loaded"].size(), 9u);
  EXPECT_EQ(report["file"], weights);

  // Trained at a learning rate of 1e-12, the model's weights are still the file's.
  const NamedTensors file = readWeightsFile(weights).tensors;
  const NamedTensors trained = readWeightsFile(summary.run_dir + "/model.pt").tensors;
  for (const auto& [name, tensor] : file) {
    if (name.find("running_") != std::string::npos || name.find("num_batches") != std::string::npos) continue;
    bool found = false;
    for (const auto& [ours, value] : trained) {
      if (ours != name) continue;
      found = true;
      EXPECT_TRUE(torch::allclose(value, tensor, 1e-6, 1e-6)) << name;
    }
    EXPECT_TRUE(found) << name;
  }
}

// The file is gone when the run resumes: the checkpoint alone gives the weights.
TEST(WeightsStart, AResumedRunIgnoresModelWeights) {
  const std::string runs = test::freshDir("weights-resume");
  const std::string weights = copyOfFixture(runs);
  TrainingRun* self = nullptr;
  TrainingRun run(tinyWeightsExperiment(runs, weights), [&](EventBatch&& batch) {
    for (const Event& ev : batch) {
      if (const auto* m = std::get_if<StepMetrics>(&ev); m && m->step >= 3) self->requestStop();
    }
  });
  self = &run;
  run.start();
  run.wait();
  const RunSummary stopped = run.summary();
  ASSERT_EQ(stopped.status, RunStatus::Interrupted);
  fs::remove(weights);

  const RunSummary resumed = resumeBlocking(ResumeRequest{stopped.run_dir, false}, collectLog());
  EXPECT_EQ(resumed.status, RunStatus::Completed);
  EXPECT_FALSE(loggedLine("weights: loaded")) << "the resumed run loaded model.weights";
  EXPECT_FALSE(loggedLine("error:"));
}

}  // namespace
}  // namespace wb
