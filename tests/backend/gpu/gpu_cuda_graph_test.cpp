// train.cuda_graphs on the GPU (ctest label "gpu"; scripts/gpu-check.sh runs them on a lent device; every
// case skips without CUDA). The step replayed from a CUDA graph against the same step run eagerly, from the
// same weights on the same batches:
//   - float32 and bf16: the same weights after a sequence of steps with a changing learning rate (a schedule
//     or a live change must reach the captured step) and a short batch in the middle (eager beside the
//     graph);
//   - fp16: a batch with an inf makes the replayed step change nothing, counts one skipped step on the device
//     and halves the scale, and the next replays train on;
//   - dropout draws new masks at each replay;
//   - a whole run with train.cuda_graphs on trains as one with it off, and its log says the graph was
//   captured.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "data/dataset.h"
#include "step/graphed_step.h"
#include "support/test_experiments.h"
#include "task/make_task.h"
#include "train/rank_step.h"
#include "train/training_data.h"
#include "train/training_model.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

#define WB_REQUIRE_CUDA()                                              \
  if (!torch::cuda::is_available()) {                                  \
    GTEST_SKIP() << "no CUDA device (this build or machine has none)"; \
  }

Experiment graphExperiment(Precision amp, double dropout = 0.0) {
  Experiment e = test::smallMlpExperiment(test::freshDir("gpu-graphs"));
  test::useSyntheticImages(e, 2048);
  e.model.layers = nlohmann::json::parse(R"([
    {"type": "conv2d", "out_channels": 16, "kernel_size": 3, "padding": 1}, {"type": "relu"},
    {"type": "maxpool2d", "kernel_size": 2}, {"type": "flatten"},
    {"type": "linear", "out_features": 64}, {"type": "relu"},
    {"type": "dropout", "p": )" + std::to_string(dropout) +
                                         R"(},
    {"type": "linear", "out_features": 10}])");
  e.optimizer.name = OptimizerName::AdamW;
  e.optimizer.lr = 1e-3;
  e.train.epochs = 0;
  e.train.max_steps = 40;
  e.train.batch_size = 64;
  e.train.log_every_steps = 1;
  e.train.devices = {"cuda:0"};
  e.train.amp = amp;
  e.train.clip_grad_norm = 1.0;  // clipping is in the captured step too
  e.train.tf32 = false;
  e.train.cudnn_benchmark = false;
  e.train.checkpoint_every_minutes = 0;
  return e;
}

struct TwoSteps {
  Dataset data;
  std::unique_ptr<RankStep> eager;
  std::unique_ptr<RankStep> graphed;
};

// Two steps of the same experiment from the same weights: one with train.cuda_graphs off, one on.
TwoSteps twoSteps(Experiment e) {
  const torch::Device device("cuda:0");
  TwoSteps t{loadTrainingData(e, device, true).data, nullptr, nullptr};
  e.train.cuda_graphs = AutoSwitch::Off;
  t.eager = std::make_unique<RankStep>(e.train, ownedModel(buildTrainingModel(e, t.data, device)),
                                       makeTask(e), device);
  e.train.cuda_graphs = AutoSwitch::On;
  t.graphed = std::make_unique<RankStep>(e.train, ownedModel(buildTrainingModel(e, t.data, device)),
                                         makeTask(e), device);
  torch::NoGradGuard no_grad;
  const auto from = t.eager->model().parameters();
  auto to = t.graphed->model().parameters();
  for (size_t i = 0; i < from.size(); ++i) to[i].copy_(from[i]);
  t.eager->model().train(true);
  t.graphed->model().train(true);
  return t;
}

Batch batchAt(const Dataset& data, int64_t first, int64_t size) {
  const torch::Device device("cuda:0");
  return Batch{data.train.x.slice(0, first, first + size).to(device),
               data.train.y.slice(0, first, first + size).to(device), first / size};
}

TrainingStep::MicroBatch eagerStep(RankStep& s, const Batch& b, int64_t step, double lr) {
  s.body().begin(step, lr);
  TrainingStep::MicroBatch r = s.body().forwardBackward(b, 1, true);
  s.body().finish(step + 1);
  return r;
}

void expectSameWeights(RankStep& a, RankStep& b, double tolerance) {
  const auto pa = a.model().namedParameters();
  const auto pb = b.model().namedParameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    SCOPED_TRACE(pa[i].first);
    const double diff = (pa[i].second - pb[i].second).abs().max().item<double>();
    const double scale = pa[i].second.abs().max().item<double>();
    EXPECT_LE(diff, tolerance * std::max(1.0, scale));
  }
}

void expectGraphMatchesEager(Precision amp, double tolerance) {
  TwoSteps t = twoSteps(graphExperiment(amp));
  ASSERT_TRUE(t.graphed->graphChoice().capture) << t.graphed->graphChoice().reason;
  GraphedStep* graphed = t.graphed->graphed();
  ASSERT_NE(graphed, nullptr);
  // 3 warm-up steps, the capture, replays; a short batch at step 8; the learning rate changes every step.
  for (int64_t step = 0; step < 14; ++step) {
    const int64_t size = step == 8 ? 40 : 64;
    const Batch b = batchAt(t.data, step * 64, size);
    const double lr = 1e-3 * (1.0 + 0.1 * static_cast<double>(step % 5));
    const TrainingStep::MicroBatch e = eagerStep(*t.eager, b, step, lr);
    const TrainingStep::MicroBatch g = graphed->step(b, step, lr);
    EXPECT_NEAR(e.loss.item<double>(), g.loss.item<double>(), tolerance * 10) << "step " << step;
  }
  std::optional<std::string> news = graphed->takeNews();
  ASSERT_TRUE(news.has_value());
  EXPECT_NE(news->find("CUDA graph captured"), std::string::npos) << *news;
  EXPECT_NE(news->find("1 step(s) of another batch shape ran eagerly"), std::string::npos) << *news;
  expectSameWeights(*t.eager, *t.graphed, tolerance);
}

TEST(GpuCudaGraph, Float32ReplayedStepsMatchEagerOnes) {
  WB_REQUIRE_CUDA();
  expectGraphMatchesEager(Precision::Off, 1e-4);
}

TEST(GpuCudaGraph, Bf16ReplayedStepsMatchEagerOnes) {
  WB_REQUIRE_CUDA();
  expectGraphMatchesEager(Precision::Bf16, 1e-2);
}

TEST(GpuCudaGraph, Fp16AnInfInsideTheGraphSkipsTheStepOnTheDevice) {
  WB_REQUIRE_CUDA();
  TwoSteps t = twoSteps(graphExperiment(Precision::Fp16));
  GraphedStep* graphed = t.graphed->graphed();
  ASSERT_NE(graphed, nullptr);
  for (int64_t step = 0; step < 6; ++step) graphed->step(batchAt(t.data, step * 64, 64), step, 1e-3);
  const double scale = t.graphed->scaler().currentScale();
  const int64_t skipped = t.graphed->scaler().skippedSteps();
  const auto before = t.graphed->model().parameters();
  std::vector<torch::Tensor> kept;
  for (const auto& p : before) kept.push_back(p.detach().clone());
  Batch poisoned = batchAt(t.data, 6 * 64, 64);
  poisoned.x = poisoned.x.clone();  // the split may live on the device already: keep it clean
  poisoned.x.view(-1)[0].fill_(std::numeric_limits<float>::infinity());
  graphed->step(poisoned, 6, 1e-3);
  for (size_t i = 0; i < kept.size(); ++i) EXPECT_TRUE(torch::equal(kept[i], before[i].detach()));
  EXPECT_EQ(t.graphed->scaler().skippedSteps(), skipped + 1);
  EXPECT_EQ(t.graphed->scaler().currentScale(), scale / 2);
  graphed->step(batchAt(t.data, 7 * 64, 64), 7, 1e-3);
  EXPECT_FALSE(torch::equal(kept.back(), before.back().detach())) << "the replay after the skip trained on";
}

TEST(GpuCudaGraph, DropoutDrawsNewMasksAtEachReplay) {
  WB_REQUIRE_CUDA();
  TwoSteps t = twoSteps(graphExperiment(Precision::Off, /*dropout=*/0.5));
  GraphedStep* graphed = t.graphed->graphed();
  ASSERT_NE(graphed, nullptr);
  const Batch b = batchAt(t.data, 0, 64);
  std::vector<double> losses;
  // Learning rate 0: the weights stay, so only the masks can change the loss.
  for (int64_t step = 0; step < 8; ++step) losses.push_back(graphed->step(b, step, 0.0).loss.item<double>());
  EXPECT_NE(losses[5], losses[6]);
  EXPECT_NE(losses[6], losses[7]);
}

struct Logged {
  std::mutex mutex;
  std::vector<StepMetrics> steps;
  std::vector<std::string> lines;
  void add(EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& e : batch) {
      if (const auto* s = std::get_if<StepMetrics>(&e)) steps.push_back(*s);
      if (const auto* l = std::get_if<LogLine>(&e)) lines.push_back(l->text);
    }
  }
};

TEST(GpuCudaGraph, ARunWithGraphsOnTrainsAsOneWithThemOff) {
  WB_REQUIRE_CUDA();
  std::vector<double> losses[2];
  std::vector<std::string> lines;
  for (int on = 0; on < 2; ++on) {
    Experiment e = graphExperiment(Precision::Off);
    e.train.cuda_graphs = on ? AutoSwitch::On : AutoSwitch::Off;
    e.train.data_on_device = AutoSwitch::Off;  // the loader's pinned copies into the static buffers
    Logged log;
    const RunSummary summary = trainBlocking(e, [&log](EventBatch&& b) { log.add(std::move(b)); });
    ASSERT_EQ(summary.status, RunStatus::Completed);
    for (const StepMetrics& m : log.steps) losses[on].push_back(m.loss);
    if (on) lines = log.lines;
  }
  ASSERT_EQ(losses[0].size(), losses[1].size());
  for (size_t i = 0; i < losses[0].size(); ++i)
    EXPECT_NEAR(losses[0][i], losses[1][i], 1e-3) << "report " << i;
  bool said = false;
  for (const auto& line : lines) said = said || line.find("CUDA graph captured") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace wb
