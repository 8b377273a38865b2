// A pipeline trains what one device trains: 2 and 3 CPU stages (threads), GPipe and 1F1B, even and uneven
// micro-batches, with gradient accumulation — the same weights after the same steps as the plain step on one
// device, within fp32 tolerance (only the order of additions differs). The model has no dropout and no batch
// norm: dropout draws in another order across micro-batches and batch norm's statistics are each
// micro-batch's, so those differ by design (pipeline/pipeline_step.h). A run stopped mid-epoch resumes to
// the uninterrupted run's weights, and a stage that fails ends the others instead of leaving them waiting.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "model/model.h"
#include "pipeline/pipeline_model.h"
#include "pipeline/pipeline_step.h"
#include "support/model_weights.h"
#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "support/tiny_experiment.h"
#include "task/classification_task.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

const nlohmann::json kLayers = nlohmann::json::array({{{"type", "flatten"}},
                                                      {{"type", "linear"}, {"out_features", 32}},
                                                      {{"type", "relu"}},
                                                      {{"type", "linear"}, {"out_features", 32}},
                                                      {{"type", "relu"}},
                                                      {{"type", "linear"}, {"out_features", 4}}});

// A stages list (json::array: nlohmann reads a list of string pairs in braces as an object).
nlohmann::json cut(std::vector<std::pair<std::string, std::string>> stages) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [device, layers] : stages) list.push_back(nlohmann::json::array({device, layers}));
  return list;
}

// 512 synthetic 1x8x8 samples in 4 classes, batch 32: 16 SGD steps with momentum an epoch.
Experiment tinyExperiment(const std::string& runs, const nlohmann::json& pipeline) {
  nlohmann::json doc = test::tinySyntheticExperiment(runs);
  doc["model"] = {{"layers", kLayers}};
  doc["optimizer"] = {{"name", "sgd"}, {"lr", 0.05}, {"momentum", 0.9}, {"weight_decay", 0}};
  doc["data"]["val_fraction"] = 0.1;
  doc["train"]["epochs"] = 1;
  doc["train"]["checkpoint_every_minutes"] = 0;
  if (!pipeline.is_null()) doc["train"]["pipeline"] = pipeline;
  ParseResult parsed = parseExperiment(doc);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.issues[0].path + ": " + parsed.issues[0].message);
  return parsed.experiment;
}

struct Trained {
  RunSummary summary;
  std::vector<std::string> log;
  std::vector<RunError> errors;
  std::vector<StepMetrics> metrics;
};

Trained train(const Experiment& e) {
  Trained out;
  std::mutex mutex;
  out.summary = trainBlocking(e, [&](EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& ev : batch) {
      if (auto* line = std::get_if<LogLine>(&ev)) out.log.push_back(line->text);
      if (auto* err = std::get_if<RunError>(&ev)) out.errors.push_back(*err);
      if (auto* m = std::get_if<StepMetrics>(&ev)) out.metrics.push_back(*m);
    }
  });
  return out;
}

std::string logged(const Trained& t, const std::string& start) {
  for (const std::string& line : t.log)
    if (line.rfind(start, 0) == 0) return line;
  return "";
}

class PipelineTraining : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    runs = test::freshDir("pipeline");
    reference = train(tinyExperiment(runs, nullptr)).summary;
    ASSERT_EQ(reference.status, RunStatus::Completed);
  }
  static void TearDownTestSuite() { fs::remove_all(runs); }

  void expectSameWeights(const nlohmann::json& pipeline, int64_t grad_accum = 1) {
    Experiment e = tinyExperiment(runs, pipeline);
    Experiment plain = tinyExperiment(runs, nullptr);
    e.train.grad_accum = plain.train.grad_accum = grad_accum;
    const Trained piped = train(e);
    ASSERT_EQ(piped.summary.status, RunStatus::Completed)
        << (piped.errors.empty() ? "" : piped.errors[0].message);
    const RunSummary one = grad_accum == 1 ? reference : train(plain).summary;
    EXPECT_EQ(piped.summary.steps, one.steps);
    EXPECT_LT(test::maxWeightDifference(one.run_dir + "/model.pt", piped.summary.run_dir + "/model.pt"),
              2e-6);
    EXPECT_NEAR(piped.summary.test_accuracy, one.test_accuracy, 1e-9);
    // The log says how the model was cut and what the stages idled.
    EXPECT_NE(logged(piped, "pipeline: " + std::to_string(pipeline["stages"].size()) + " stages"), "");
    EXPECT_NE(logged(piped, "pipeline idle per stage: "), "");
  }

  static std::string runs;
  static RunSummary reference;
};
std::string PipelineTraining::runs;
RunSummary PipelineTraining::reference;

TEST_F(PipelineTraining, TwoStagesGPipeTrainLikeOneDevice) {
  expectSameWeights(
      {{"stages", cut({{"cpu", "0..2"}, {"cpu", "3..5"}})}, {"micro_batches", 4}, {"schedule", "gpipe"}});
}

TEST_F(PipelineTraining, TwoStages1F1BTrainLikeOneDevice) {
  expectSameWeights(
      {{"stages", cut({{"cpu", "0..2"}, {"cpu", "3..5"}})}, {"micro_batches", 8}, {"schedule", "1f1b"}});
}

// 32 samples in 3 micro-batches (11, 11, 10): each weighted by its size, so still the batch's gradient.
TEST_F(PipelineTraining, ThreeStagesUnevenMicroBatchesTrainLikeOneDevice) {
  expectSameWeights({{"stages", cut({{"cpu", "0..1"}, {"cpu", "2..3"}, {"cpu", "4..5"}})},
                     {"micro_batches", 3},
                     {"schedule", "1f1b"}});
}

TEST_F(PipelineTraining, GradientAccumulationOverPipelinedBatches) {
  expectSameWeights(
      {{"stages", cut({{"cpu", "0..3"}, {"cpu", "4..5"}})}, {"micro_batches", 4}, {"schedule", "gpipe"}}, 2);
}

// train.clip_grad_norm over a pipeline: one norm over every stage's gradients and one scale for all of them,
// so the weights are one device's with the same clip. The clip bites: the norms measured before clipping are
// above it all run long (a clip that never bites would pass with per-stage clipping too).
TEST_F(PipelineTraining, ClippingAcrossStagesTrainsLikeOneDevice) {
  Experiment plain = tinyExperiment(runs, nullptr);
  Experiment piped = tinyExperiment(
      runs, {{"stages", cut({{"cpu", "0..1"}, {"cpu", "2..3"}, {"cpu", "4..5"}})}, {"micro_batches", 4}});
  for (Experiment* e : {&plain, &piped}) {
    e->train.clip_grad_norm = 0.05;
    e->train.log_every_steps = 1;
  }
  const Trained one = train(plain);
  const Trained two = train(piped);
  ASSERT_EQ(two.summary.status, RunStatus::Completed) << (two.errors.empty() ? "" : two.errors[0].message);
  ASSERT_EQ(two.metrics.size(), one.metrics.size());
  ASSERT_FALSE(two.metrics.empty());
  for (size_t i = 0; i < two.metrics.size(); ++i) {
    EXPECT_GT(two.metrics[i].grad_norm, 0.05) << "step " << two.metrics[i].step;
    EXPECT_NEAR(two.metrics[i].grad_norm, one.metrics[i].grad_norm, 1e-5) << "step " << two.metrics[i].step;
  }
  EXPECT_LT(test::maxWeightDifference(one.summary.run_dir + "/model.pt", two.summary.run_dir + "/model.pt"),
            2e-6);
  // The step metrics name the pipeline's device: its three CPU stages share one entry (one device's memory
  // curve); the plain run has none.
  ASSERT_EQ(two.metrics.back().devices.size(), 1u);
  EXPECT_EQ(two.metrics.back().devices[0].device, "cpu");
  EXPECT_EQ(two.metrics.back().devices[0].stages, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_GT(two.metrics.back().devices[0].cpu_rss_bytes, 0);
  EXPECT_TRUE(one.metrics.back().devices.empty());
  // And it is not the unclipped run's.
  EXPECT_GT(test::maxWeightDifference(reference.run_dir + "/model.pt", two.summary.run_dir + "/model.pt"),
            1e-3);
}

// train.amp bf16 on the CPU: each stage's forward runs under autocast as the one-device step's does. With one
// micro-batch the stages compute what one device computes, so the weights agree to float32 rounding; with
// several, each micro-batch's bfloat16 products round on their own (as micro-batching does in any bf16
// pipeline), so the weights stay nearer one device's bf16 run than float32 training is.
TEST_F(PipelineTraining, Bf16TrainsLikeOneDeviceInBf16) {
  Experiment plain = tinyExperiment(runs, nullptr);
  plain.train.amp = Precision::Bf16;
  const Trained one = train(plain);
  const std::string weights = one.summary.run_dir + "/model.pt";
  const double from_fp32 = test::maxWeightDifference(reference.run_dir + "/model.pt", weights);
  EXPECT_GT(from_fp32, 1e-4);  // bf16 did run
  for (const int micro_batches : {1, 4}) {
    Experiment piped = tinyExperiment(
        runs, {{"stages", cut({{"cpu", "0..2"}, {"cpu", "3..5"}})}, {"micro_batches", micro_batches}});
    piped.train.amp = Precision::Bf16;
    const Trained two = train(piped);
    ASSERT_EQ(two.summary.status, RunStatus::Completed) << (two.errors.empty() ? "" : two.errors[0].message);
    const double apart = test::maxWeightDifference(weights, two.summary.run_dir + "/model.pt");
    EXPECT_LT(apart, micro_batches == 1 ? 2e-6 : from_fp32 / 2) << micro_batches << " micro-batches";
  }
}

// Batch norm in training mode normalizes each micro-batch by its own statistics, so it trains differently
// from the whole batch (as GPipe's paper and PyTorch's pipelines say); frozen (eval mode, running statistics)
// it trains the same.
TEST_F(PipelineTraining, BatchNormDiffersUnlessFrozen) {
  const nlohmann::json layers =
      nlohmann::json::array({{{"type", "conv2d"}, {"out_channels", 4}, {"kernel_size", 3}, {"padding", 1}},
                             {{"type", "batchnorm2d"}},
                             {{"type", "relu"}},
                             {{"type", "flatten"}},
                             {{"type", "linear"}, {"out_features", 4}}});
  for (const bool frozen : {false, true}) {
    Experiment plain = tinyExperiment(runs, nullptr);
    Experiment piped =
        tinyExperiment(runs, {{"stages", cut({{"cpu", "0..1"}, {"cpu", "2..4"}})}, {"micro_batches", 4}});
    for (Experiment* e : {&plain, &piped}) {
      e->model.layers = layers;
      if (frozen) e->model.freeze = {"layers.1.*"};
    }
    const RunSummary one = train(plain).summary;
    const RunSummary two = train(piped).summary;
    ASSERT_EQ(two.status, RunStatus::Completed);
    const double difference = test::maxWeightDifference(one.run_dir + "/model.pt", two.run_dir + "/model.pt");
    if (frozen) {
      EXPECT_LT(difference, 2e-6);
    } else {
      EXPECT_GT(difference, 1e-3);
    }
  }
}

TEST_F(PipelineTraining, ABadCutFailsTheRunNamingTheStage) {
  const Trained bad = train(
      tinyExperiment(runs, {{"stages", cut({{"cpu", "0..2"}, {"cpu", "4..5"}})}, {"micro_batches", 2}}));
  EXPECT_EQ(bad.summary.status, RunStatus::Failed);
  ASSERT_FALSE(bad.errors.empty());
  EXPECT_NE(
      bad.errors[0].message.find("train.pipeline.stages[1][1]: linear (model.layers[3]) is in no stage"),
      std::string::npos)
      << bad.errors[0].message;
}

TEST_F(PipelineTraining, StoppedMidEpochResumesToTheSameWeights) {
  Experiment e =
      tinyExperiment(runs, {{"stages", cut({{"cpu", "0..2"}, {"cpu", "3..5"}})}, {"micro_batches", 4}});
  e.train.epochs = 4;
  e.train.log_every_steps = 2;
  const RunSummary whole = train(e).summary;
  ASSERT_EQ(whole.status, RunStatus::Completed);
  TrainingRun* self = nullptr;
  TrainingRun run(e, [&](EventBatch&& batch) {
    for (const Event& ev : batch) {
      if (const auto* m = std::get_if<StepMetrics>(&ev); m && m->step >= 10) self->requestStop();
    }
  });
  self = &run;
  run.start();
  run.wait();
  ASSERT_EQ(run.summary().status, RunStatus::Interrupted);
  const RunSummary resumed = resumeBlocking(ResumeRequest{run.summary().run_dir, false}, nullptr);
  ASSERT_EQ(resumed.status, RunStatus::Completed);
  test::expectBitIdentical(whole.run_dir + "/model.pt", resumed.run_dir + "/model.pt");
}

// `train --profile` on a pipeline: every stage's forward and backward of every micro-batch is a range of its
// own ("## forward ## stage 1 micro-batch 3"), recorded on the stage's thread (the profiler's state handed to
// it), so the trace shows each stage's work and the gaps between (the bubble), and the table has their rows.
TEST_F(PipelineTraining, AProfileHasEachStagesForwardAndBackwardPerMicroBatch) {
  Experiment e =
      tinyExperiment(runs, {{"stages", cut({{"cpu", "0..2"}, {"cpu", "3..5"}})}, {"micro_batches", 3}});
  std::optional<ProfileRecorded> recorded;
  std::mutex mutex;
  TrainingRun run(e, [&](EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Event& ev : batch) {
      if (const auto* p = std::get_if<ProfileRecorded>(&ev)) recorded = *p;
    }
  });
  ProfileRequest request;
  request.first_step = 2;
  request.steps = 2;
  run.requestProfile(request);
  run.start();
  run.wait();
  ASSERT_EQ(run.summary().status, RunStatus::Completed);
  ASSERT_TRUE(recorded.has_value());
  ASSERT_TRUE(recorded->error.empty()) << recorded->error;
  const nlohmann::json trace = nlohmann::json::parse(test::readBytes(recorded->report.trace_path));
  // Each range's threads, in the trace's order (once per profiled step).
  std::map<std::string, std::vector<uint64_t>> threads;
  std::set<uint64_t> step_threads;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (!event.contains("name") || !event.contains("tid") || !event["tid"].is_number()) continue;
    if (event.value("ph", "") != "X") continue;
    const std::string name = event["name"];
    if (name.rfind("ProfilerStep#", 0) == 0) step_threads.insert(event["tid"].get<uint64_t>());
    if (name.rfind("## ", 0) == 0) threads[name].push_back(event["tid"].get<uint64_t>());
  }
  ASSERT_EQ(step_threads.size(), 1u);
  for (const char* phase : {"forward", "backward"}) {
    for (int s = 0; s < 2; ++s) {
      const std::string stage = std::string("## ") + phase + " ## stage " + std::to_string(s);
      for (int k = 0; k < 3; ++k) {
        const std::string name = stage + " micro-batch " + std::to_string(k);
        ASSERT_EQ(threads[name].size(), 2u) << name;            // once in each profiled step
        EXPECT_EQ(threads[name][0], threads[name][1]) << name;  // a stage keeps its thread: one trace row
        for (size_t step = 0; step < 2; ++step) {
          EXPECT_EQ(step_threads.count(threads[name][step]), 0u) << name;  // not the training thread
          // The stage's thread: its every range in that step is on it.
          EXPECT_EQ(threads[name][step],
                    threads["## forward ## stage " + std::to_string(s) + " micro-batch 0"][step])
              << name;
        }
        const auto row = std::find_if(recorded->report.operators.begin(), recorded->report.operators.end(),
                                      [&](const ProfileOperatorRow& r) { return r.name == name; });
        ASSERT_NE(row, recorded->report.operators.end()) << name;
        EXPECT_EQ(row->calls, 2) << name;
      }
    }
  }
  // Stage 0 and stage 1 on two threads.
  EXPECT_NE(threads["## forward ## stage 0 micro-batch 0"][0],
            threads["## forward ## stage 1 micro-batch 0"][0]);
}

// The step on its own, with a batch that makes one stage throw: the call returns that stage's error (the
// other stage, waiting for a hand-off, is released), well within the time a hang would take.
class FailingStage : public ::testing::TestWithParam<PipelineSchedule> {};

void expectStageError(PipelineStep& step, const Batch& batch, const std::string& words) {
  auto call = std::async(std::launch::async, [&] { step.forwardBackward(batch, 1, true); });
  if (call.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    ADD_FAILURE() << "the pipeline hung after a stage failed";
    std::_Exit(1);  // the stage threads cannot be joined: end here rather than hang the suite
  }
  try {
    call.get();
    ADD_FAILURE() << "no error";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
  }
}

TEST_P(FailingStage, EndsTheOtherStages) {
  torch::manual_seed(1);
  ModelConfig config;
  config.layers = kLayers;
  PipelineConfig pipeline;
  pipeline.enabled = true;
  pipeline.stages = {{"cpu", "0..1"}, {"cpu", "2..3"}, {"cpu", "4..5"}};
  pipeline.micro_batches = 4;
  pipeline.schedule = GetParam();
  std::unique_ptr<Model> model = cutIntoStages(buildModel(config, {1, 8, 8}, 4), pipeline);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  StepParts parts;
  const ClassificationTask task;
  PipelineStep step(dynamic_cast<PipelineModel&>(*model), optimizer, parts, task, torch::kCPU, std::nullopt,
                    pipeline);
  // The last stage's loss: a label past the classes.
  expectStageError(step, {torch::randn({8, 1, 8, 8}), torch::full({8}, 9, torch::kLong), 0}, "out of bounds");
  // The first stage: samples of another shape.
  expectStageError(step, {torch::randn({8, 1, 9, 9}), torch::zeros({8}, torch::kLong), 0}, "shapes cannot");
  // And the step still works after both.
  step.forwardBackward({torch::randn({8, 1, 8, 8}), torch::zeros({8}, torch::kLong), 0}, 1, true);
}

INSTANTIATE_TEST_SUITE_P(Schedules, FailingStage,
                         ::testing::Values(PipelineSchedule::GPipe, PipelineSchedule::OneFOneB));

}  // namespace
}  // namespace wb
