// GradScaler against a hand-computed sequence. torch.cuda.amp.GradScaler is the reference, but Debian's
// torch 1.13 cannot run it here: without CUDA it disables itself, and its two kernels
// (_amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_) have no CPU implementation in 1.13. The
// expected values below follow torch's documented rule and the kernels' code: overflow → scale × 0.5,
// tracker 0, optimizer step skipped; otherwise tracker + 1, and at growth_interval scale × 2 and tracker 0.
// tests/backend/gpu checks the CUDA path (the fused kernels) against this CPU path on the GPU machine.

#include "optim/grad_scaler.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "optim/device_step.h"

namespace wb {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One parameter w and a loss (w · c).sum(), so the gradient is exactly c.
struct Toy {
  torch::Tensor w = torch::tensor({1.0f, 2.0f}).requires_grad_(true);
  torch::optim::SGD sgd{std::vector<torch::Tensor>{w}, torch::optim::SGDOptions(0.125)};

  // One training step through the scaler with gradient c; returns whether the optimizer stepped.
  bool step(GradScaler& scaler, double c0, double c1) {
    sgd.zero_grad();
    const auto c = torch::tensor({c0, c1}, torch::kFloat32);
    scaler.scale((w * c).sum()).backward();
    scaler.step(sgd);
    scaler.update();
    return !scaler.lastStepSkipped();
  }
  std::vector<float> values() const {
    auto t = w.detach().contiguous();
    return {t[0].item<float>(), t[1].item<float>()};
  }
};

TEST(GradScaler, DefaultsAreTorchs) {
  GradScalerOptions o;
  EXPECT_EQ(o.init_scale, 65536.0);
  EXPECT_EQ(o.growth_factor, 2.0);
  EXPECT_EQ(o.backoff_factor, 0.5);
  EXPECT_EQ(o.growth_interval, 2000);
  EXPECT_TRUE(o.enabled);
  GradScaler scaler;
  EXPECT_EQ(scaler.currentScale(), 65536.0);  // before the first scale(), as torch's get_scale()
}

TEST(GradScaler, ScalesTheLossAndUnscalesTheGradients) {
  GradScaler scaler;
  Toy toy;
  const auto loss = (toy.w * torch::tensor({3.0f, -4.0f})).sum();
  const auto scaled = scaler.scale(loss);
  EXPECT_EQ(scaled.scalar_type(), torch::kFloat32);
  EXPECT_FLOAT_EQ(scaled.item<float>(), loss.item<float>() * 65536.0f);
  scaled.backward();
  EXPECT_FLOAT_EQ(toy.w.grad()[0].item<float>(), 3.0f * 65536.0f);
  scaler.unscale(toy.sgd);  // before clipping: the gradients are the true ones from here
  EXPECT_FLOAT_EQ(toy.w.grad()[0].item<float>(), 3.0f);
  EXPECT_FLOAT_EQ(toy.w.grad()[1].item<float>(), -4.0f);
  scaler.step(toy.sgd);  // does not unscale a second time
  EXPECT_FALSE(scaler.lastStepSkipped());
  EXPECT_FLOAT_EQ(toy.values()[0], 1.0f - 0.125f * 3.0f);
  EXPECT_FLOAT_EQ(toy.values()[1], 2.0f + 0.125f * 4.0f);
  scaler.update();
  EXPECT_EQ(scaler.state().growth_tracker, 1);
  EXPECT_EQ(scaler.currentScale(), 65536.0);
}

TEST(GradScaler, HandComputedSequenceWithInjectedInfAndNaN) {
  GradScalerOptions options;
  options.growth_interval = 3;
  GradScaler scaler(options);
  Toy toy;
  struct Expected {
    double c0, c1;
    bool stepped;
    double scale;
    int64_t tracker;
  };
  // clang-format off
  const std::vector<Expected> sequence = {
    {1, 1, true, 65536, 1},
    {1, 1, true, 65536, 2},
    {1, 1, true, 131072, 0},   // third clean step: growth
    {kInf, 1, false, 65536, 0},  // overflow: skipped, halved
    {1, kNaN, false, 32768, 0},  // NaN counts as overflow
    {1, 1, true, 32768, 1},
    {1, 1, true, 32768, 2},
    {-kInf, 1, false, 16384, 0},  // an overflow resets the tracker before the interval is reached
    {1, 1, true, 16384, 1},
    {1, 1, true, 16384, 2},
    {1, 1, true, 32768, 0},
  };
  // clang-format on
  std::vector<float> w = toy.values();
  int64_t skipped = 0;
  for (size_t i = 0; i < sequence.size(); ++i) {
    const Expected& e = sequence[i];
    SCOPED_TRACE("step " + std::to_string(i));
    EXPECT_EQ(toy.step(scaler, e.c0, e.c1), e.stepped);
    EXPECT_EQ(scaler.lastStepSkipped(), !e.stepped);
    if (e.stepped) {
      w[0] -= 0.125f * static_cast<float>(e.c0);
      w[1] -= 0.125f * static_cast<float>(e.c1);
    } else {
      ++skipped;
    }
    // A skipped step leaves the parameters exactly as they were.
    EXPECT_EQ(toy.values()[0], w[0]);
    EXPECT_EQ(toy.values()[1], w[1]);
    EXPECT_EQ(scaler.currentScale(), e.scale);
    EXPECT_EQ(scaler.state().growth_tracker, e.tracker);
    EXPECT_EQ(scaler.skippedSteps(), skipped);
  }
}

TEST(GradScaler, GrowsAfterTheDefaultIntervalOfCleanSteps) {
  GradScaler scaler;
  Toy toy;
  for (int i = 1; i < 2000; ++i) ASSERT_TRUE(toy.step(scaler, 1e-3, 1e-3));
  EXPECT_EQ(scaler.currentScale(), 65536.0);
  EXPECT_EQ(scaler.state().growth_tracker, 1999);
  ASSERT_TRUE(toy.step(scaler, 1e-3, 1e-3));  // the 2000th
  EXPECT_EQ(scaler.currentScale(), 131072.0);
  EXPECT_EQ(scaler.state().growth_tracker, 0);
}

TEST(GradScaler, KeepsAFiniteScaleWhenGrowthWouldOverflowFloat32) {
  GradScalerOptions options;
  options.init_scale = 3e38;  // × 2 is beyond float32's 3.4e38
  options.growth_interval = 1;
  GradScaler scaler(options);
  Toy toy;
  toy.step(scaler, 1e-30, 1e-30);
  EXPECT_EQ(scaler.currentScale(), static_cast<double>(3e38f));
  EXPECT_EQ(scaler.state().growth_tracker, 0);
}

TEST(GradScaler, AccumulatesScaledGradientsOverMicroBatches) {
  GradScaler scaler;
  Toy toy;
  toy.sgd.zero_grad();
  for (int micro = 0; micro < 3; ++micro) {
    scaler.scale((toy.w * torch::tensor({1.0f, 2.0f})).sum() / 3.0).backward();
  }
  scaler.unscale(toy.sgd);
  EXPECT_NEAR(toy.w.grad()[0].item<float>(), 1.0f, 1e-6);
  EXPECT_NEAR(toy.w.grad()[1].item<float>(), 2.0f, 1e-6);
  scaler.step(toy.sgd);
  EXPECT_FALSE(scaler.lastStepSkipped());
  scaler.update();
}

TEST(GradScaler, RefusesCallsOutOfOrderAsTorchDoes) {
  GradScaler scaler;
  Toy toy;
  scaler.scale((toy.w * 2.0).sum()).backward();
  scaler.unscale(toy.sgd);
  EXPECT_THROW(scaler.unscale(toy.sgd), std::logic_error);
  scaler.step(toy.sgd);
  EXPECT_THROW(scaler.step(toy.sgd), std::logic_error);
  EXPECT_THROW(scaler.unscale(toy.sgd), std::logic_error);
  scaler.update();
  EXPECT_THROW(scaler.update(), std::logic_error);  // no inf check since the last update
}

TEST(GradScaler, RefusesFp16Gradients) {
  GradScaler scaler;
  auto w = torch::ones({2}, torch::kHalf).requires_grad_(true);
  torch::optim::SGD sgd({w}, torch::optim::SGDOptions(0.1));
  scaler.scale((w.to(torch::kFloat32) * 1e-3).sum()).backward();
  EXPECT_THROW(scaler.step(sgd), std::invalid_argument);
}

TEST(GradScaler, DisabledIsATransparentPassThrough) {
  GradScalerOptions options;
  options.enabled = false;
  GradScaler scaler(options);
  Toy toy;
  const auto loss = (toy.w * 2.0).sum();
  EXPECT_TRUE(scaler.scale(loss).is_same(loss));
  EXPECT_TRUE(toy.step(scaler, kInf, 1));  // no check: the optimizer steps whatever the gradients
  EXPECT_TRUE(std::isinf(toy.values()[0]));
  EXPECT_EQ(scaler.currentScale(), 1.0);
}

TEST(GradScaler, StateRoundTripsAndResumesTheSameSequence) {
  GradScalerOptions options;
  options.growth_interval = 4;
  GradScaler a(options);
  Toy toy_a;
  toy_a.step(a, 1, 1);
  toy_a.step(a, kInf, 1);
  toy_a.step(a, 1, 1);
  toy_a.step(a, 1, 1);
  const GradScalerState saved = a.state();
  EXPECT_EQ(saved.scale, 32768.0);
  EXPECT_EQ(saved.growth_tracker, 2);
  EXPECT_EQ(saved.skipped_steps, 1);
  const GradScalerState restored = GradScalerState::fromJson(nlohmann::json::parse(saved.toJson().dump()));

  GradScaler b;  // default options: the state brings the interval along
  b.loadState(restored);
  EXPECT_EQ(b.currentScale(), 32768.0);
  Toy toy_b;
  for (int i = 0; i < 2; ++i) {
    toy_a.step(a, 1, 1);
    toy_b.step(b, 1, 1);
  }
  EXPECT_EQ(a.currentScale(), 65536.0);  // grew at the 4th clean step after the overflow
  EXPECT_EQ(b.currentScale(), a.currentScale());
  EXPECT_EQ(b.state().growth_tracker, a.state().growth_tracker);
  EXPECT_EQ(b.skippedSteps(), 1);

  // Loading into a scaler that is already in use overwrites its device tensors.
  GradScaler c;
  Toy toy_c;
  toy_c.step(c, 1, 1);
  c.loadState(restored);
  EXPECT_EQ(c.currentScale(), 32768.0);
  EXPECT_EQ(c.state().growth_tracker, 2);
}

// An optimizer with a device step: SGD whose step takes the scaler's grad_scale and found_inf, as the fused
// CUDA kernels do (here on the CPU, so the scaler's side of the contract is tested without a GPU).
class DeviceSgd final : public torch::optim::SGD, public DeviceStep {
 public:
  using torch::optim::SGD::SGD;
  bool stepsOnDevice() const override { return true; }
  bool capturable() const override { return true; }
  void stageLearningRates() override {}
  void stepScaled(const torch::Tensor& grad_scale, const torch::Tensor& found_inf) override {
    ++calls;
    saw_grad_scale = grad_scale.defined();
    torch::NoGradGuard no_grad;
    const double lr = static_cast<torch::optim::SGDOptions&>(param_groups()[0].options()).lr();
    for (auto& p : param_groups()[0].params()) {
      torch::Tensor g = grad_scale.defined() ? p.grad() / grad_scale : p.grad();
      // What the kernels do: no change where found_inf is set (here without reading it either).
      p.sub_(torch::where(found_inf != 0, torch::zeros_like(g), lr * g));
    }
  }
  // Its step reads and writes the parameters only.
  std::vector<torch::Tensor> graphTensors() const override { return param_groups()[0].params(); }
  int calls = 0;
  bool saw_grad_scale = false;
};

// With a device step the scaler hands the kernels the scale (gradients not unscaled yet) or nothing (already
// unscaled) and found_inf, never steps through step(), and counts a skipped step on the device.
TEST(GradScaler, HandsAnOptimizerWithADeviceStepTheScaleAndFoundInf) {
  GradScalerOptions options;
  options.init_scale = 1024;
  GradScaler scaler(options);
  auto w = torch::tensor({1.0f, 2.0f}).requires_grad_(true);
  DeviceSgd sgd({w}, torch::optim::SGDOptions(0.125));
  const auto run = [&](float c0, bool unscale_first) {
    sgd.zero_grad();
    scaler.scale((w * torch::tensor({c0, 1.0f})).sum()).backward();
    if (unscale_first) scaler.unscale(sgd);
    scaler.step(sgd);
    scaler.update();
  };
  run(2.0f, /*unscale_first=*/false);
  EXPECT_EQ(sgd.calls, 1);
  EXPECT_TRUE(sgd.saw_grad_scale);  // the kernel divides
  EXPECT_FLOAT_EQ(w[0].item<float>(), 1.0f - 0.125f * 2.0f);
  EXPECT_FLOAT_EQ(w[1].item<float>(), 2.0f - 0.125f);
  run(2.0f, /*unscale_first=*/true);
  EXPECT_FALSE(sgd.saw_grad_scale);  // already the true gradients
  EXPECT_FLOAT_EQ(w[0].item<float>(), 1.0f - 0.25f * 2.0f);
  const torch::Tensor before = w.detach().clone();
  run(std::numeric_limits<float>::infinity(), /*unscale_first=*/false);
  EXPECT_EQ(sgd.calls, 3);
  EXPECT_TRUE(torch::equal(w.detach(), before));
  EXPECT_TRUE(scaler.lastStepSkipped());
  EXPECT_EQ(scaler.skippedSteps(), 1);
  EXPECT_EQ(scaler.currentScale(), 512.0);
  EXPECT_EQ(scaler.state().skipped_steps, 1);
}

}  // namespace
}  // namespace wb
