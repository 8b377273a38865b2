// Data parallel on CUDA devices (NCCL), on a machine with two or more GPUs: two ranks of batch B train the
// same weights as one rank of batch 2B (float32, TF32 off), and the metrics report both devices' memory.
// Skips without two CUDA devices or without NCCL in this LibTorch build.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "distributed/process_group_ranks.h"
#include "support/model_weights.h"
#include "support/test_experiments.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

Experiment cudaExperiment(const std::vector<std::string>& devices, int64_t batch) {
  Experiment e = test::smallMlpExperiment(test::freshDir("gpu-dp-" + std::to_string(devices.size())));
  e.data.dataset = DatasetName::Synthetic;
  e.data.path = "";
  e.data.limit = 0;
  e.data.synthetic_samples = 4096;
  e.data.synthetic_classes = 10;
  e.data.synthetic_shape = {1, 28, 28};
  e.data.val_fraction = 0;
  e.model.preset = "";
  e.model.layers = nlohmann::json::parse(R"([{"type": "flatten"}, {"type": "linear", "out_features": 128},
    {"type": "relu"}, {"type": "linear", "out_features": 10}])");
  e.optimizer.name = OptimizerName::Sgd;
  e.optimizer.lr = 0.05;
  e.optimizer.weight_decay = 0;
  e.schedule.name = ScheduleName::Constant;
  e.train.epochs = 1;
  e.train.batch_size = batch;
  e.train.devices = devices;
  e.train.tf32 = false;
  e.train.checkpoint_every_minutes = 0;
  e.train.collective_timeout = 60;
  return e;
}

TEST(GpuDataParallel, TwoCudaRanksTrainLikeOneRankOfDoubleBatch) {
  if (!torch::cuda::is_available() || torch::cuda::device_count() < 2) {
    GTEST_SKIP() << "needs two CUDA devices (this machine has " << torch::cuda::device_count() << ")";
  }
  if (!hasCollectivesFor(torch::Device("cuda:0"))) GTEST_SKIP() << "this LibTorch build has no NCCL";
  std::vector<StepMetrics> steps;
  std::mutex mutex;
  const RunSummary one = trainBlocking(cudaExperiment({"cuda:0"}, 128), [](EventBatch&&) {});
  const RunSummary two = trainBlocking(cudaExperiment({"cuda:0", "cuda:1"}, 64), [&](EventBatch&& batch) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto& e : batch)
      if (auto* m = std::get_if<StepMetrics>(&e)) steps.push_back(*m);
  });
  ASSERT_EQ(one.status, RunStatus::Completed);
  ASSERT_EQ(two.status, RunStatus::Completed);
  EXPECT_EQ(one.steps, two.steps);
  const auto a = test::readWeights(one.run_dir + "/model.pt");
  const auto b = test::readWeights(two.run_dir + "/model.pt");
  for (const auto& [name, t] : a) EXPECT_LT((t - b.at(name)).abs().max().item<double>(), 1e-4) << name;
  ASSERT_FALSE(steps.empty());
  ASSERT_EQ(steps.back().devices.size(), 2u);
  EXPECT_EQ(steps.back().devices[1].device, "cuda:1");
  EXPECT_GT(steps.back().devices[1].cuda_allocated_bytes, 0);
}

}  // namespace
}  // namespace wb
