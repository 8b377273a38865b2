// The window's previews and summaries, made while a run trains in the same process, leave the run's random
// numbers alone: torch's default CPU generator is one per process (util/default_cpu_generator.h), and a
// preview that builds a model draws its initialization from it.

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/model_weights.h"
#include "support/test_experiments.h"
#include "workbench/data_preview.h"
#include "workbench/lr_preview.h"
#include "workbench/model_summary.h"
#include "workbench/training_memory.h"
#include "workbench/training_run.h"
#include "workbench/weights_load_report.h"

namespace wb {
namespace {

// A run that draws from the default CPU generator at every step: an MLP with dropout on one CPU device
// (its initialization draws too), a few dozen steps on synthetic images.
Experiment dropoutRun(const std::string& runs) {
  Experiment e = test::smallMlpExperiment(runs);
  test::useSyntheticImages(e, 384, {1, 8, 8}, 4);
  e.model.layers = nlohmann::json::parse(R"([{"type": "flatten"}, {"type": "linear", "out_features": 32},
      {"type": "relu"}, {"type": "dropout", "p": 0.5}, {"type": "linear", "out_features": 4}])");
  e.train.epochs = 3;
  e.train.batch_size = 16;
  e.train.threads = 1;
  e.seed = 7;
  return e;
}

// Every preview and summary the window makes of an experiment: the model summary (with model.freeze, which
// builds the model), the memory figures, the learning-rate curve, the weights preview (which builds and
// loads) and the data preview, and the experiment's checks (which build it again).
void makeEveryPreview(const Experiment& e) {
  const ModelSummary summary = summarizeModel(e);
  ASSERT_TRUE(summary.issues.empty());
  (void)estimateTrainingMemory(e, summary, {int64_t(8) << 30});
  (void)learningRateCurve(e);
  (void)previewWeightsLoad(e);
  (void)previewData(e, 4);
  (void)checkExperiment(e);
}

// The window's experiment: the run's, frozen in part and starting from a weights file (another seed, so its
// models differ from the run's).
Experiment previewedExperiment(const Experiment& run, const std::string& weights) {
  Experiment e = run;
  e.seed = 11;
  e.model.freeze = {"layers.1.*"};
  e.model.weights = weights;
  return e;
}

torch::Tensor defaultCpuGeneratorState() {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  return generator.get_state();
}

TEST(PreviewsBesideARun, EveryPreviewLeavesTheDefaultCpuGeneratorAsItFoundIt) {
  const std::string runs = test::freshDir("previews-generator");
  const Experiment run = dropoutRun(runs);
  const RunSummary trained = trainBlocking(run, [](EventBatch&&) {});
  ASSERT_EQ(trained.status, RunStatus::Completed);

  torch::manual_seed(3);
  (void)torch::rand({5});  // a state some way into its stream, as a training run's would be
  const torch::Tensor before = defaultCpuGeneratorState();
  makeEveryPreview(previewedExperiment(run, trained.run_dir + "/model.pt"));
  EXPECT_TRUE(torch::equal(defaultCpuGeneratorState(), before));
}

// The issue's case: previews made over and over on another thread while the run trains, and the run's
// weights bit for bit those of the same run alone.
TEST(PreviewsBesideARun, ARunTrainedWhilePreviewsAreMadeEndsWithTheWeightsOfTheRunAlone) {
  const Experiment run = dropoutRun(test::freshDir("previews-run-alone"));
  const RunSummary alone = trainBlocking(run, [](EventBatch&&) {});
  ASSERT_EQ(alone.status, RunStatus::Completed);

  const Experiment previewed = previewedExperiment(run, alone.run_dir + "/model.pt");
  std::atomic<bool> running{true};
  std::atomic<int> previews_during_run{0};
  std::thread window([&] {
    while (running) {
      makeEveryPreview(previewed);
      if (running) ++previews_during_run;
    }
  });
  Experiment again = run;
  again.output.runs_dir = test::freshDir("previews-run-beside");  // where it writes, not what it draws
  const RunSummary beside = trainBlocking(again, [](EventBatch&&) {});
  running = false;
  window.join();
  ASSERT_EQ(beside.status, RunStatus::Completed);
  ASSERT_GE(previews_during_run.load(), 1) << "no preview was made while the run trained";
  test::expectBitIdentical(alone.run_dir + "/model.pt", beside.run_dir + "/model.pt");
}

}  // namespace
}  // namespace wb
