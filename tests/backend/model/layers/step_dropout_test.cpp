// The dropout layer with a rank's step generator (model/step_generator.h): the same seed draws the same mask,
// on any thread and however the threads interleave; the mask is torch's dropout drawn from that generator;
// without a generator (one device) and in eval mode it is torch's dropout itself, and the global generator is
// left alone when a step generator is set. Exact comparisons throughout: the draws are meant to be bit for
// bit the same. (On CUDA: test_gpu's gpu_step_dropout_test.cpp.)

#include "model/layers/step_dropout.h"

#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <thread>

#include "model/layers/dense_layers.h"
#include "model/model.h"
#include "model/step_generator.h"

namespace wb {
namespace {

torch::Generator cpuGenerator(uint64_t seed) {
  return at::detail::createCPUGenerator(seed);
}

torch::Tensor trainForward(StepDropout& dropout, const torch::Tensor& x) {
  dropout->train();
  return dropout->forward(x);
}

class StepDropoutTest : public ::testing::Test {
 protected:
  void TearDown() override { setStepGenerator(std::nullopt); }
  const torch::Tensor x = torch::arange(1, 2001, torch::kFloat).reshape({40, 50});
};

TEST_F(StepDropoutTest, TheSameSeedDrawsTheSameMask) {
  StepDropout dropout(0.5);
  seedStepGenerator(torch::kCPU, 7);
  const torch::Tensor first = trainForward(dropout, x);
  const torch::Tensor second = trainForward(dropout, x);
  EXPECT_FALSE(torch::equal(first, second));  // the stream goes on within a step
  seedStepGenerator(torch::kCPU, 7);
  EXPECT_TRUE(torch::equal(trainForward(dropout, x), first));
  setStepGenerator(cpuGenerator(7));  // a fresh generator with that seed: the same stream
  EXPECT_TRUE(torch::equal(trainForward(dropout, x), first));
  seedStepGenerator(torch::kCPU, 8);
  EXPECT_FALSE(torch::equal(trainForward(dropout, x), first));
}

TEST_F(StepDropoutTest, IsTorchsDropoutDrawnFromTheStepGenerator) {
  for (double p : {0.1, 0.5, 0.9}) {
    SCOPED_TRACE(p);
    torch::manual_seed(11);
    const torch::Tensor expected = torch::dropout(x, p, /*train=*/true);
    StepDropout dropout(p);
    setStepGenerator(cpuGenerator(11));
    const torch::Tensor actual = trainForward(dropout, x);
    EXPECT_TRUE(torch::equal(actual, expected));
    // Kept values scaled by 1 / (1 - p), the others 0.
    const torch::Tensor kept = actual != 0;
    EXPECT_TRUE(torch::allclose(actual.masked_select(kept), x.masked_select(kept) / (1 - p)));
    const double keptShare = kept.to(torch::kDouble).mean().item<double>();
    EXPECT_NEAR(keptShare, 1 - p, 0.05);
  }
}

TEST_F(StepDropoutTest, WithoutAStepGeneratorItIsTorchsDropout) {
  ASSERT_EQ(stepGenerator(), nullptr);
  StepDropout ours(0.3);
  torch::nn::Dropout theirs(0.3);
  torch::manual_seed(5);
  const torch::Tensor expected = theirs->forward(x);
  torch::manual_seed(5);
  EXPECT_TRUE(torch::equal(trainForward(ours, x), expected));
}

TEST_F(StepDropoutTest, WithAStepGeneratorTheGlobalGeneratorIsLeftAlone) {
  torch::manual_seed(3);
  const torch::Tensor expected = torch::rand({8});
  torch::manual_seed(3);
  StepDropout dropout(0.5);
  seedStepGenerator(torch::kCPU, 1);
  trainForward(dropout, x);
  EXPECT_TRUE(torch::equal(torch::rand({8}), expected));
}

TEST_F(StepDropoutTest, EvalModeAndPZeroPassTheInputOnAndPOneDropsAll) {
  seedStepGenerator(torch::kCPU, 9);
  StepDropout dropout(0.5);
  dropout->eval();
  EXPECT_TRUE(torch::equal(dropout->forward(x), x));
  StepDropout none(0.0);
  EXPECT_TRUE(torch::equal(trainForward(none, x), x));
  StepDropout all(1.0);
  EXPECT_TRUE(torch::equal(trainForward(all, x), torch::zeros_like(x)));
  // Eval mode drew nothing: the stream is where the seed put it.
  StepDropout half(0.5);
  const torch::Tensor afterEval = trainForward(half, x);
  seedStepGenerator(torch::kCPU, 9);
  EXPECT_TRUE(torch::equal(trainForward(half, x), afterEval));
}

TEST_F(StepDropoutTest, TheGradientIsTheMaskScaled) {
  StepDropout dropout(0.25);
  seedStepGenerator(torch::kCPU, 4);
  const torch::Tensor input = x.clone().requires_grad_(true);
  const torch::Tensor y = trainForward(dropout, input);
  y.sum().backward();
  EXPECT_TRUE(torch::allclose(input.grad(), (y != 0).to(torch::kFloat) / 0.75));
}

TEST_F(StepDropoutTest, TheGeneratorIsPerThreadAndTheScopeRestoresIt) {
  seedStepGenerator(torch::kCPU, 1);
  torch::Generator* mine = stepGenerator();
  ASSERT_NE(mine, nullptr);
  std::thread([] { EXPECT_EQ(stepGenerator(), nullptr); }).join();
  {
    StepGeneratorScope scope;  // none within
    EXPECT_EQ(stepGenerator(), nullptr);
    {
      StepGeneratorScope inner(cpuGenerator(2));
      EXPECT_NE(stepGenerator(), nullptr);
    }
    EXPECT_EQ(stepGenerator(), nullptr);
  }
  ASSERT_NE(stepGenerator(), nullptr);
  EXPECT_EQ(stepGenerator()->current_seed(), 1u);
}

// Two ranks on two threads, each seeding per step from (rank, step), many times over: the masks never depend
// on how the threads interleave, and equal what one thread draws alone.
TEST_F(StepDropoutTest, RanksOnThreadsDrawTheSameMasksInEveryRun) {
  const int steps = 20;
  auto runRank = [&](int rank, std::vector<torch::Tensor>& out) {
    StepDropout dropout(0.5);
    for (int step = 0; step < steps; ++step) {
      seedStepGenerator(torch::kCPU, static_cast<uint64_t>(1000 * (rank + 1) + step));
      out.push_back(trainForward(dropout, x));
    }
    setStepGenerator(std::nullopt);
  };
  std::vector<std::vector<torch::Tensor>> alone(2);
  for (int rank = 0; rank < 2; ++rank) runRank(rank, alone[static_cast<size_t>(rank)]);
  for (int run = 0; run < 5; ++run) {
    std::vector<std::vector<torch::Tensor>> threaded(2);
    std::thread a(runRank, 0, std::ref(threaded[0]));
    std::thread b(runRank, 1, std::ref(threaded[1]));
    a.join();
    b.join();
    for (size_t r = 0; r < 2; ++r) {
      for (int s = 0; s < steps; ++s) ASSERT_TRUE(torch::equal(threaded[r][s], alone[r][s])) << r << " " << s;
    }
  }
  EXPECT_FALSE(torch::equal(alone[0][0], alone[1][0]));
}

// The layer builds it; it has no parameters or buffers, so weights files do not change.
TEST_F(StepDropoutTest, TheDropoutLayerBuildsItWithNoTensors) {
  const torch::nn::AnyModule module = DropoutLayer(0.2).instantiate({10});
  const auto ptr = module.ptr();
  ASSERT_NE(std::dynamic_pointer_cast<StepDropoutImpl>(ptr), nullptr);
  EXPECT_NE(std::dynamic_pointer_cast<torch::nn::DropoutImpl>(ptr), nullptr);
  EXPECT_TRUE(ptr->parameters().empty());
  EXPECT_TRUE(ptr->buffers().empty());
  ModelConfig config;
  config.preset = "mlp";  // has dropout layers
  std::unique_ptr<Model> model = buildModel(config, {1, 28, 28}, 10);
  int64_t count = 0;
  for (const auto& [name, tensor] : model->namedParameters()) count += tensor.numel();
  EXPECT_EQ(count, model->info().parameters);
}

}  // namespace
}  // namespace wb
