// AutocastGuard on the CPU (bf16): the dtype ops produce inside and outside the guard, state restored on
// exit, and a short training run in bf16 that follows the float32 run's loss curve.

#include "optim/autocast_guard.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

namespace wb {
namespace {

TEST(AutocastGuard, CpuMatmulIsBf16InsideAndFloatOutside) {
  const auto a = torch::randn({8, 16});
  const auto b = torch::randn({16, 4});
  ASSERT_FALSE(AutocastGuard::isEnabled(torch::kCPU));
  {
    AutocastGuard guard(torch::kCPU, torch::kBFloat16);
    EXPECT_TRUE(AutocastGuard::isEnabled(torch::kCPU));
    EXPECT_EQ(torch::matmul(a, b).scalar_type(), torch::kBFloat16);
    EXPECT_EQ(torch::mm(a, b).scalar_type(), torch::kBFloat16);
    torch::nn::Linear linear(16, 4);
    EXPECT_EQ(linear->forward(a).scalar_type(), torch::kBFloat16);
    EXPECT_EQ(linear->weight.scalar_type(), torch::kFloat32);  // the weights stay float32
    EXPECT_FALSE(AutocastGuard::isEnabled(torch::kCUDA));      // per device type
  }
  EXPECT_FALSE(AutocastGuard::isEnabled(torch::kCPU));
  EXPECT_EQ(torch::matmul(a, b).scalar_type(), torch::kFloat32);
}

TEST(AutocastGuard, NestsAndRestoresThePreviousState) {
  const auto a = torch::randn({4, 4});
  {
    AutocastGuard outer(torch::kCPU, torch::kBFloat16);
    {
      AutocastGuard off(torch::kCPU, torch::kBFloat16, /*enabled=*/false);  // a no-op
      EXPECT_TRUE(AutocastGuard::isEnabled(torch::kCPU));
    }
    {
      AutocastGuard inner(torch::kCPU, torch::kBFloat16);
      EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kBFloat16);
    }
    EXPECT_TRUE(AutocastGuard::isEnabled(torch::kCPU));  // the inner guard restored "enabled"
    EXPECT_EQ(torch::mm(a, a).scalar_type(), torch::kBFloat16);
  }
  EXPECT_FALSE(AutocastGuard::isEnabled(torch::kCPU));
}

TEST(AutocastGuard, IsPerThread) {
  AutocastGuard guard(torch::kCPU, torch::kBFloat16);
  bool other_enabled = true;
  std::thread([&] { other_enabled = AutocastGuard::isEnabled(torch::kCPU); }).join();
  EXPECT_FALSE(other_enabled);
}

TEST(AutocastGuard, RefusesFp16OnTheCpu) {
  EXPECT_THROW(AutocastGuard(torch::kCPU, torch::kHalf), std::invalid_argument);
  EXPECT_FALSE(AutocastGuard::isEnabled(torch::kCPU));
}

TEST(AutocastGuard, ParsesTheExperimentsAmpValue) {
  EXPECT_EQ(autocastDtype(Precision::Bf16), std::optional<c10::ScalarType>(torch::kBFloat16));
  EXPECT_EQ(autocastDtype(Precision::Fp16), std::optional<c10::ScalarType>(torch::kHalf));
  EXPECT_FALSE(autocastDtype(Precision::Off).has_value());
}

// 60 AdamW steps of a small MLP on a fixed synthetic problem, with and without bf16 autocast around the
// forward pass and the loss: bf16 keeps 8 bits of mantissa, so the curves differ in detail but must agree
// within a few percent and both must learn.
std::vector<double> trainLosses(bool bf16) {
  torch::manual_seed(7);
  const auto x = torch::randn({256, 32});
  const auto y =
      (x.narrow(1, 0, 4).sum(1) > 0).to(torch::kInt64) + 2 * (x.narrow(1, 4, 4).sum(1) > 0).to(torch::kInt64);
  torch::nn::Sequential net(torch::nn::Linear(32, 64), torch::nn::ReLU(), torch::nn::Linear(64, 4));
  torch::optim::AdamW opt(net->parameters(), torch::optim::AdamWOptions(3e-3));
  std::vector<double> losses;
  for (int step = 0; step < 60; ++step) {
    const auto idx = torch::arange(step % 4 * 64, step % 4 * 64 + 64);
    opt.zero_grad();
    torch::Tensor loss;
    {
      AutocastGuard guard(torch::kCPU, torch::kBFloat16, bf16);
      loss =
          torch::nn::functional::cross_entropy(net->forward(x.index_select(0, idx)), y.index_select(0, idx));
    }
    EXPECT_EQ(loss.scalar_type(), torch::kFloat32);  // cross_entropy runs in float32 under autocast
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  return losses;
}

TEST(AutocastGuard, Bf16LossCurveFollowsFloat32) {
  const std::vector<double> fp32 = trainLosses(false);
  const std::vector<double> bf16 = trainLosses(true);
  EXPECT_NEAR(bf16.front(), fp32.front(), 0.02);  // same weights, same first batch
  double worst = 0;
  for (size_t i = 0; i < fp32.size(); ++i) worst = std::max(worst, std::abs(bf16[i] - fp32[i]));
  EXPECT_LT(worst, 0.03) << "largest difference of the per-step losses";
  EXPECT_GT(worst, 0.0) << "identical curves: autocast did not run";
  EXPECT_LT(fp32.back(), 0.6 * fp32.front());
  EXPECT_LT(bf16.back(), 0.6 * bf16.front());
}

}  // namespace
}  // namespace wb
