// train.clip_grad_norm's window of norms: a step whose gradients overflowed (fp16: the loss scaler skips it)
// has an inf or NaN norm; the window reports the mean of the finite norms and counts the others, instead of
// one inf for the whole window.

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "step/clip_grad_norm_part.h"
#include "step/step_parts.h"

namespace wb {
namespace {

// One parameter whose gradient has the norm `norm` (3-4-5: the gradient is [0.6, 0.8] × norm).
void setGradientNorm(torch::Tensor& p, double norm) {
  p.mutable_grad() = torch::tensor({0.6, 0.8}, torch::kFloat32) * norm;
}

TEST(ClipNormWindow, AnOverflowedStepIsCountedApartNotAveraged) {
  torch::Tensor p = torch::zeros({2}, torch::kFloat32).requires_grad_(true);
  ClipGradNormPart clip({p}, /*max_norm=*/100.0);
  setGradientNorm(p, 3.0);
  clip.gradientsReady();
  p.mutable_grad() = torch::tensor({std::numeric_limits<float>::infinity(), 1.0f});
  clip.gradientsReady();
  setGradientNorm(p, 5.0);
  clip.gradientsReady();
  p.mutable_grad() = torch::tensor({std::numeric_limits<float>::quiet_NaN(), 1.0f});
  clip.gradientsReady();
  const GradNormWindow window = clip.takeGradNorm();
  ASSERT_TRUE(window.mean.has_value());
  EXPECT_NEAR(*window.mean, 4.0, 1e-5);
  EXPECT_EQ(window.nonfinite, 2);
}

TEST(ClipNormWindow, AWindowOfOverflowsOnlyHasNoMeanAndTheNextStartsClean) {
  torch::Tensor p = torch::zeros({2}, torch::kFloat32).requires_grad_(true);
  ClipGradNormPart clip({p}, 100.0);
  EXPECT_FALSE(clip.takeGradNorm().mean.has_value());  // nothing measured yet
  p.mutable_grad() = torch::tensor({std::numeric_limits<float>::infinity(), 1.0f});
  clip.gradientsReady();
  GradNormWindow window = clip.takeGradNorm();
  EXPECT_FALSE(window.mean.has_value());
  EXPECT_EQ(window.nonfinite, 1);
  setGradientNorm(p, 2.0);
  clip.gradientsReady();
  window = clip.takeGradNorm();
  ASSERT_TRUE(window.mean.has_value());
  EXPECT_NEAR(*window.mean, 2.0, 1e-5);
  EXPECT_EQ(window.nonfinite, 0);
  window = clip.takeGradNorm();  // an empty window
  EXPECT_FALSE(window.mean.has_value());
  EXPECT_EQ(window.nonfinite, 0);
}

// StepParts hands on the window of the part that measured one.
TEST(ClipNormWindow, TheListHandsOnTheClippingPartsWindow) {
  torch::Tensor p = torch::zeros({2}, torch::kFloat32).requires_grad_(true);
  auto clip = std::make_shared<ClipGradNormPart>(std::vector<torch::Tensor>{p}, 100.0);
  StepParts parts;
  parts.add(clip);
  p.mutable_grad() = torch::tensor({std::numeric_limits<float>::infinity(), 1.0f});
  parts.gradientsReady();
  setGradientNorm(p, 3.0);
  parts.gradientsReady();
  const GradNormWindow window = parts.takeGradNorm();
  ASSERT_TRUE(window.mean.has_value());
  EXPECT_NEAR(*window.mean, 3.0, 1e-5);
  EXPECT_EQ(window.nonfinite, 1);
}

}  // namespace
}  // namespace wb
