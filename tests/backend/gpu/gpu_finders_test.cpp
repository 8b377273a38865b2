// The finders on CUDA (skipped without a GPU):
//   - the batch-size finder meets a real CUDA out-of-memory (a 1 TiB allocation inside the step, above a
//   batch
//     size), catches it, releases the cache and bisects on to the right largest; memory is back afterwards;
//   - a cap on torch's peak allocated memory limits the batch, and a bigger cap gives a bigger batch;
//   - the LR range test runs on CUDA with fp16 autocast and loss scaling and suggests a rate in the fall.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "support/test_experiments.h"
#include "util/cuda_memory.h"
#include "workbench/finders.h"

namespace wb {
namespace {

#define WB_REQUIRE_CUDA()                                              \
  if (!torch::cuda::is_available()) {                                  \
    GTEST_SKIP() << "no CUDA device (this build or machine has none)"; \
  }

Experiment cudaFinderExperiment(const std::string& amp) {
  Experiment e = test::smallMlpExperiment(test::freshDir("gpu-finders-" + amp));
  e.data.dataset = DatasetName::Synthetic;
  e.data.path = "";
  e.data.limit = 0;
  e.data.synthetic_samples = 4096;
  e.data.synthetic_classes = 10;
  e.data.synthetic_shape = {1, 28, 28};
  e.data.val_fraction = 0;
  e.model.preset = "";
  e.model.layers = nlohmann::json::parse(R"([
    {"type": "conv2d", "out_channels": 16, "kernel_size": 3, "padding": 1}, {"type": "relu"},
    {"type": "maxpool2d", "kernel_size": 2}, {"type": "flatten"},
    {"type": "linear", "out_features": 64}, {"type": "relu"}, {"type": "linear", "out_features": 10}])");
  e.train.devices = {"cuda:0"};
  e.train.amp = fromWord<Precision>(amp).value();
  e.train.data_on_device = AutoSwitch::Off;  // the loader's pinned copies are part of what is measured
  return e;
}

const BatchTrial* trialOf(const BatchFinderResult& r, int64_t batch) {
  for (const auto& t : r.trials)
    if (t.batch_size == batch) return &t;
  return nullptr;
}

TEST(GpuBatchSizeFinder, ARealCudaOutOfMemoryIsCaughtReleasedAndTheSearchGoesOn) {
  WB_REQUIRE_CUDA();
  const Experiment e = cudaFinderExperiment("off");
  BatchFinderOptions options;
  options.timed_steps = 1;
  // Above 100 samples the step asks the caching allocator for 1 TiB: the allocator's own out-of-memory.
  options.inside_step = [](int64_t batch) {
    if (batch > 100)
      torch::empty({int64_t{1} << 40}, torch::TensorOptions().dtype(torch::kByte).device(torch::kCUDA));
  };
  std::vector<int64_t> order;
  const BatchFinderResult r =
      findBatchSize(e, options, {}, [&](const BatchTrial& t) { order.push_back(t.batch_size); });
  const std::vector<int64_t> expected = {1, 2, 4, 8, 16, 32, 64, 128, 96, 112, 104, 100};
  EXPECT_EQ(order, expected);
  EXPECT_EQ(r.largest, 100);
  EXPECT_EQ(r.suggested, 64);
  EXPECT_EQ(r.memory_measure, "peak CUDA memory allocated by torch");
  for (const auto& t : r.trials) {
    if (t.batch_size > 100) {
      EXPECT_EQ(t.outcome, BatchTrialOutcome::OutOfMemory) << t.batch_size;
      EXPECT_NE(t.note.find("out of memory"), std::string::npos) << t.note;
    } else {
      EXPECT_EQ(t.outcome, BatchTrialOutcome::Fits) << t.batch_size << ": " << t.note;
      EXPECT_GT(t.peak_bytes, 0);
    }
  }
  // Everything the finder allocated is gone with it, cache included.
  const CudaMemoryStats after = cudaMemoryStats(0);
  EXPECT_LT(after.allocated_bytes, 16 << 20);
  EXPECT_LT(after.reserved_bytes, 64 << 20);
}

TEST(GpuBatchSizeFinder, ACapOnPeakCudaMemoryLimitsTheBatch) {
  WB_REQUIRE_CUDA();
  const Experiment e = cudaFinderExperiment("off");
  BatchFinderOptions options;
  options.timed_steps = 1;
  options.max_batch = 1024;
  const BatchFinderResult all = findBatchSize(e, options);
  ASSERT_EQ(all.largest, 1024) << all.stop_reason;
  const int64_t p128 = trialOf(all, 128)->peak_bytes, p256 = trialOf(all, 256)->peak_bytes;
  ASSERT_GT(p256, p128);
  options.max_memory_bytes = (p128 + p256) / 2;
  const BatchFinderResult capped = findBatchSize(e, options);
  EXPECT_GE(capped.largest, 128);
  EXPECT_LT(capped.largest, 256);
  EXPECT_LE(trialOf(capped, capped.largest)->peak_bytes, options.max_memory_bytes);
  EXPECT_EQ(capped.limit_source, "the given limit");
  options.max_memory_bytes = trialOf(all, 1024)->peak_bytes;
  EXPECT_GT(findBatchSize(e, options).largest, capped.largest);
}

TEST(GpuLrRangeTest, RunsWithFp16LossScalingAndSuggestsARateInTheFall) {
  WB_REQUIRE_CUDA();
  const Experiment e = cudaFinderExperiment("fp16");
  LrFinderOptions options;
  options.steps = 100;
  const LrFinderResult r = findLearningRate(e, options);
  EXPECT_EQ(r.device, "cuda:0");
  ASSERT_GE(r.points.size(), 20u) << r.stop_reason;
  ASSERT_NE(r.suggestion.rule, LrSuggestionRule::None) << r.suggestion.explanation;
  EXPECT_LT(r.points[static_cast<size_t>(r.suggestion.index)].smoothed, r.points.front().smoothed);
  EXPECT_GT(r.suggestion.lr, 1e-6);
  EXPECT_LT(r.suggestion.lr, 1.0);
}

}  // namespace
}  // namespace wb
