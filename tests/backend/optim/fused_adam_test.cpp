// The fused Adam/AdamW step against LibTorch's own: same results (to rounding) over many steps with the
// learning rate changing, the same state (a checkpoint moves between them), the same bits whatever the
// thread count, and LibTorch's step wherever the fused pass does not apply. (Against torch.optim itself:
// optimizer_factory_test's fixture runs both.)

#include "optim/fused_adam.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "support/optimizer_steps.h"

namespace wb {
namespace {

using test::cloneParameters;
using test::load;
using test::saved;

// A conv weight, a matrix larger than one thread's grain (so the pass is split across threads), a bias and
// a scalar.
std::vector<torch::Tensor> makeParameters(uint64_t seed, torch::ScalarType dtype = torch::kFloat) {
  torch::manual_seed(seed);
  return {torch::randn({8, 3, 5, 5}, dtype), torch::randn({300, 257}, dtype), torch::randn({300}, dtype),
          torch::randn({}, dtype)};
}

std::vector<torch::optim::OptimizerParamGroup> twoGroups(const std::vector<torch::Tensor>& params) {
  // Matrices decay, vectors and scalars do not: the grouping makeOptimizer builds.
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(std::vector<torch::Tensor>{params[0], params[1]});
  groups.emplace_back(std::vector<torch::Tensor>{params[2], params[3]});
  return groups;
}

template <typename Optimizer, typename Options>
std::unique_ptr<torch::optim::Optimizer> build(const std::vector<torch::Tensor>& params, Options options) {
  auto optimizer = std::make_unique<Optimizer>(twoGroups(params), options);
  static_cast<Options&>(optimizer->param_groups().back().options()).weight_decay(0.0);
  return optimizer;
}

// Gradients of a fixed sequence, the same for both optimizers: step k's gradient of parameter i.
void setGradients(const std::vector<torch::Tensor>& params, int step) {
  for (size_t i = 0; i < params.size(); ++i) {
    torch::manual_seed(1000 * static_cast<uint64_t>(step) + i);
    // Scaled so that some moments grow large and some stay near eps.
    torch::Tensor grad = torch::randn(params[i].sizes(), params[i].options().requires_grad(false)) *
                         std::pow(10.0, (step % 5) - 2);
    params[i].mutable_grad() = grad.contiguous(params[i].suggest_memory_format());
  }
}

void run(torch::optim::Optimizer& optimizer, const std::vector<torch::Tensor>& params, int first, int last) {
  for (int step = first; step < last; ++step) {
    for (auto& group : optimizer.param_groups()) group.options().set_lr(1e-3 * (1 + step % 3));
    setGradients(params, step);
    optimizer.step();
  }
}

void expectClose(const std::vector<torch::Tensor>& actual, const std::vector<torch::Tensor>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    SCOPED_TRACE("parameter " + std::to_string(i));
    // float32 ops in the same order; differences come only from where ATen fuses a multiply-add.
    EXPECT_TRUE(torch::allclose(actual[i], expected[i], /*rtol=*/1e-5, /*atol=*/1e-6))
        << "max difference " << (actual[i] - expected[i]).abs().max().item<double>();
    EXPECT_FALSE(torch::equal(actual[i], makeParameters(7)[i].to(actual[i].scalar_type())))
        << "the parameter did not move";
  }
}

torch::optim::AdamWOptions adamwOptions() {
  return torch::optim::AdamWOptions(1e-3).betas(std::make_tuple(0.9, 0.999)).eps(1e-8).weight_decay(0.05);
}

torch::optim::AdamOptions adamOptions() {
  return torch::optim::AdamOptions(1e-3).betas(std::make_tuple(0.8, 0.99)).eps(1e-6).weight_decay(0.01);
}

TEST(FusedAdamTest, AdamWMatchesLibTorchsStep) {
  const auto fused_params = cloneParameters(makeParameters(7));
  const auto plain_params = cloneParameters(makeParameters(7));
  auto fused = build<FusedAdamW>(fused_params, adamwOptions());
  auto plain = build<torch::optim::AdamW>(plain_params, adamwOptions());
  EXPECT_TRUE(takesFusedStep(*fused));
  EXPECT_FALSE(takesFusedStep(*plain));
  run(*fused, fused_params, 0, 30);
  run(*plain, plain_params, 0, 30);
  expectClose(fused_params, plain_params);
}

TEST(FusedAdamTest, AdamWithL2DecayMatchesLibTorchsStep) {
  const auto fused_params = cloneParameters(makeParameters(7));
  const auto plain_params = cloneParameters(makeParameters(7));
  auto fused = build<FusedAdam>(fused_params, adamOptions());
  auto plain = build<torch::optim::Adam>(plain_params, adamOptions());
  EXPECT_TRUE(takesFusedStep(*fused));
  run(*fused, fused_params, 0, 30);
  run(*plain, plain_params, 0, 30);
  expectClose(fused_params, plain_params);
}

TEST(FusedAdamTest, TheSameBitsWithOneThreadOrTwo) {
  const int threads = at::get_num_threads();
  std::vector<std::vector<torch::Tensor>> results;
  for (int n : {1, 2}) {
    at::set_num_threads(n);
    const auto params = cloneParameters(makeParameters(7));
    auto fused = build<FusedAdamW>(params, adamwOptions());
    run(*fused, params, 0, 5);
    results.push_back(params);
  }
  at::set_num_threads(threads);
  for (size_t i = 0; i < results[0].size(); ++i) {
    EXPECT_TRUE(torch::equal(results[0][i], results[1][i])) << "parameter " << i;
  }
}

// A run checkpointed with one and resumed with the other continues as if it had never switched.
TEST(FusedAdamTest, StateMovesBetweenFusedAndPlain) {
  const auto reference_params = cloneParameters(makeParameters(7));
  auto reference = build<torch::optim::AdamW>(reference_params, adamwOptions());
  run(*reference, reference_params, 0, 12);

  // fused for 6 steps, then plain
  const auto first = cloneParameters(makeParameters(7));
  auto fused = build<FusedAdamW>(first, adamwOptions());
  run(*fused, first, 0, 6);
  const auto resumed = cloneParameters(first);
  auto plain = build<torch::optim::AdamW>(resumed, adamwOptions());
  load(*plain, saved(*fused));
  run(*plain, resumed, 6, 12);
  expectClose(resumed, reference_params);

  // plain for 6 steps, then fused
  const auto second = cloneParameters(makeParameters(7));
  auto plain_first = build<torch::optim::AdamW>(second, adamwOptions());
  run(*plain_first, second, 0, 6);
  const auto resumed_fused = cloneParameters(second);
  auto fused_after = build<FusedAdamW>(resumed_fused, adamwOptions());
  load(*fused_after, saved(*plain_first));
  run(*fused_after, resumed_fused, 6, 12);
  expectClose(resumed_fused, reference_params);
}

// Where the fused pass does not apply the fused optimizer is LibTorch's, bit for bit.
void expectPlainStep(const std::vector<torch::Tensor>& start, torch::optim::AdamWOptions options) {
  const auto fused_params = cloneParameters(start);
  const auto plain_params = cloneParameters(start);
  auto fused = build<FusedAdamW>(fused_params, options);
  auto plain = build<torch::optim::AdamW>(plain_params, options);
  run(*fused, fused_params, 0, 4);
  run(*plain, plain_params, 0, 4);
  for (size_t i = 0; i < start.size(); ++i) {
    EXPECT_TRUE(torch::equal(fused_params[i], plain_params[i])) << "parameter " << i;
  }
}

TEST(FusedAdamTest, Float64ParametersTakeLibTorchsStep) {
  const auto params = makeParameters(7, torch::kDouble);
  auto probe = build<FusedAdamW>(cloneParameters(params), adamwOptions());
  EXPECT_FALSE(takesFusedStep(*probe));
  expectPlainStep(params, adamwOptions());
}

TEST(FusedAdamTest, AmsgradTakesLibTorchsStep) {
  auto options = adamwOptions().amsgrad(true);
  auto probe = build<FusedAdamW>(cloneParameters(makeParameters(7)), options);
  EXPECT_FALSE(takesFusedStep(*probe));
  expectPlainStep(makeParameters(7), options);
}

TEST(FusedAdamTest, GradientLaidOutUnlikeItsParameterTakesLibTorchsStep) {
  const auto fused_params = cloneParameters(makeParameters(7));
  const auto plain_params = cloneParameters(makeParameters(7));
  auto fused = build<FusedAdamW>(fused_params, adamwOptions());
  auto plain = build<torch::optim::AdamW>(plain_params, adamwOptions());
  for (auto* pair : {&fused_params, &plain_params}) {
    setGradients(*pair, 0);
    // the conv weight's gradient in channels_last while the weight is contiguous
    (*pair)[0].mutable_grad() = (*pair)[0].grad().contiguous(torch::MemoryFormat::ChannelsLast);
  }
  fused->step();
  plain->step();
  for (size_t i = 0; i < fused_params.size(); ++i) {
    EXPECT_TRUE(torch::equal(fused_params[i], plain_params[i])) << "parameter " << i;
  }
}

TEST(FusedAdamTest, ChannelsLastWeightsTakeTheFusedPass) {
  auto start = makeParameters(7);
  start[0] = start[0].contiguous(torch::MemoryFormat::ChannelsLast);
  const auto fused_params = cloneParameters(start);
  const auto plain_params = cloneParameters(start);
  ASSERT_TRUE(fused_params[0].is_contiguous(torch::MemoryFormat::ChannelsLast));
  auto fused = build<FusedAdamW>(fused_params, adamwOptions());
  auto plain = build<torch::optim::AdamW>(plain_params, adamwOptions());
  EXPECT_TRUE(takesFusedStep(*fused));
  run(*fused, fused_params, 0, 10);
  run(*plain, plain_params, 0, 10);
  expectClose(fused_params, plain_params);
  EXPECT_TRUE(fused_params[0].is_contiguous(torch::MemoryFormat::ChannelsLast));
}

TEST(FusedAdamTest, ParametersWithoutGradientsAreLeftAlone) {
  const auto params = cloneParameters(makeParameters(7));
  auto fused = build<FusedAdamW>(params, adamwOptions());
  const torch::Tensor before = params[1].detach().clone();
  setGradients(params, 0);
  params[1].mutable_grad() = torch::Tensor();
  fused->step();
  EXPECT_TRUE(torch::equal(params[1], before));
  EXPECT_FALSE(torch::equal(params[0], makeParameters(7)[0]));
}

}  // namespace
}  // namespace wb
