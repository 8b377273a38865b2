// Resume on CUDA: a run stopped on cuda:0 (after its first epoch of three) and resumed on cuda:0 continues at
// its checkpoint's step and ends with the weights of the run left alone, for an optimizer with per-parameter
// state (AdamW's moments, SGD's momentum). The checkpoint is read onto the CPU; the first H200 run failed the
// resumed run's first step because the optimizer's state stayed there. The net is linear layers only (cuBLAS
// is deterministic on one stream; cuDNN's convolution gradients need not be), float32 with TF32 off; with
// train.cuda_graphs on (the resumed run warms up and captures anew) and off.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <tuple>

#include "support/model_weights.h"
#include "support/resumed_session.h"
#include "support/test_experiments.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

Experiment cudaResumableExperiment(const std::string& optimizer) {
  Experiment e = test::smallMlpExperiment(test::freshDir("gpu-resume-" + optimizer));
  test::useSyntheticImages(e, 2048);
  e.model.layers = nlohmann::json::parse(R"([{"type": "flatten"}, {"type": "linear", "out_features": 128},
    {"type": "relu"}, {"type": "linear", "out_features": 10}])");
  e.optimizer.name = fromWord<OptimizerName>(optimizer).value();
  e.optimizer.lr = e.optimizer.name == OptimizerName::Sgd ? 0.05 : 1e-3;
  e.optimizer.momentum = 0.9;
  e.train.epochs = 3;
  e.train.batch_size = 64;
  e.train.log_every_steps = 1;
  e.train.devices = {"cuda:0"};
  e.train.tf32 = false;
  e.train.checkpoint_every_minutes = 0;
  return e;
}

// Stopped at the end of its first epoch (asked before the first step: deterministic however fast the GPU
// steps; a stop asked from the event sink arrived after this run's last step).
RunSummary runStoppedAfterTheFirstEpoch(const Experiment& e) {
  TrainingRun run(e, nullptr);
  run.start();
  run.stopAfterEpoch("test");
  run.wait();
  return run.summary();
}

class GpuResume : public ::testing::TestWithParam<std::tuple<std::string, AutoSwitch>> {};

TEST_P(GpuResume, StoppedOnCudaResumesOnCudaWhereTheRunLeftAloneEnds) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device (this build or machine has none)";
  Experiment e = cudaResumableExperiment(std::get<0>(GetParam()));
  e.train.cuda_graphs = std::get<1>(GetParam());
  std::string error;
  auto keepError = [&](EventBatch&& batch) {
    for (const Event& ev : batch)
      if (const auto* err = std::get_if<RunError>(&ev)) error = err->message;
  };
  const RunSummary reference = trainBlocking(e, keepError);
  ASSERT_EQ(reference.status, RunStatus::Completed) << error;
  const RunSummary stopped = runStoppedAfterTheFirstEpoch(e);
  ASSERT_EQ(stopped.status, RunStatus::Interrupted);
  ASSERT_EQ(stopped.steps, reference.steps / 3);
  const RunSummary resumed = resumeBlocking(ResumeRequest{stopped.run_dir, false}, keepError);
  ASSERT_EQ(resumed.status, RunStatus::Completed) << error;
  EXPECT_EQ(resumed.steps, reference.steps);
  const test::ResumedSession session = test::lastResumedSession(resumed.run_dir + "/metrics.jsonl");
  EXPECT_EQ(session.continued_at, stopped.steps);
  EXPECT_EQ(session.step_events, reference.steps - stopped.steps);
  const auto a = test::readWeights(reference.run_dir + "/model.pt");
  const auto b = test::readWeights(resumed.run_dir + "/model.pt");
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, t] : a) EXPECT_LT((t - b.at(name)).abs().max().item<double>(), 1e-5) << name;
}

INSTANTIATE_TEST_SUITE_P(Optimizers, GpuResume,
                         ::testing::Combine(::testing::Values("adamw", "sgd"),
                                            ::testing::Values(AutoSwitch::Off, AutoSwitch::On)));

}  // namespace
}  // namespace wb
