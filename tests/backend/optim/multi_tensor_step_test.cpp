// The multi-tensor steps (multi_tensor_step.h) that run on CUDA, checked here on CPU tensors by forcing them
// (StepPath): the foreach ops against LibTorch's per-parameter step, bit for bit; LibTorch's fused kernels
// (which have CPU versions from 2.4) against it within float32 rounding; a step that found_inf marks changes
// nothing; and the state a save writes is LibTorch's, step counts included, so a checkpoint moves between
// these and the plain optimizers. (Against torch.optim itself: optimizer_factory_test's fixture runs every
// path.)

#include "optim/multi_tensor_step.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "optim/foreach_optimizers.h"
#include "optim/fused_adam.h"
#include "optim/fused_sgd.h"
#include "optim/step_path.h"
#include "support/optimizer_steps.h"

// A namespace of its own: the unity build puts this file beside others with helpers of the same names.
namespace wb::multi_tensor_step_test {
namespace {

using test::build;
using test::cloneParameters;
using test::expectClose;
using test::load;
using test::saved;

using test::Params;

// A conv weight, a matrix, a bias and a scalar.
Params makeParameters() {
  torch::manual_seed(7);
  Params params = {torch::randn({8, 3, 5, 5}), torch::randn({40, 33}), torch::randn({40}), torch::randn({})};
  for (auto& p : params) p.requires_grad_(true);
  return params;
}

// Step k's gradient of parameter i, the same for every optimizer; the last parameter has none on odd steps
// (a parameter the loss does not always reach).
void setGradients(const Params& params, int step) {
  for (size_t i = 0; i < params.size(); ++i) {
    if (i + 1 == params.size() && step % 2 == 1) {
      params[i].mutable_grad() = torch::Tensor();
      continue;
    }
    torch::manual_seed(1000 * static_cast<uint64_t>(step) + i);
    params[i].mutable_grad() = torch::randn(params[i].sizes()) * std::pow(10.0, (step % 5) - 2);
  }
}

void run(torch::optim::Optimizer& optimizer, const Params& params, int first, int last) {
  for (int step = first; step < last; ++step) {
    for (auto& group : optimizer.param_groups()) group.options().set_lr(1e-2 * (1 + step % 3));
    setGradients(params, step);
    optimizer.step();
  }
}

void expectEqual(const Params& actual, const Params& expected) {
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_TRUE(torch::equal(actual[i], expected[i]))
        << "parameter " << i << ": max difference " << (actual[i] - expected[i]).abs().max().item<double>();
  }
}

torch::optim::AdamWOptions adamwOptions() {
  return torch::optim::AdamWOptions(1e-3).betas(std::make_tuple(0.9, 0.999)).eps(1e-8).weight_decay(0.05);
}
torch::optim::AdamOptions adamOptions() {
  return torch::optim::AdamOptions(1e-3).betas(std::make_tuple(0.8, 0.99)).eps(1e-6).weight_decay(0.01);
}
torch::optim::SGDOptions sgdOptions(bool nesterov) {
  return torch::optim::SGDOptions(1e-2).momentum(0.9).dampening(0).weight_decay(1e-3).nesterov(nesterov);
}
torch::optim::RMSpropOptions rmspropOptions(double momentum) {
  return torch::optim::RMSpropOptions(1e-2).alpha(0.9).eps(1e-8).weight_decay(1e-3).momentum(momentum);
}
torch::optim::AdagradOptions adagradOptions() {
  return torch::optim::AdagradOptions(1e-2).lr_decay(0.01).weight_decay(1e-3).eps(1e-10);
}

// Ours on `path` and LibTorch's own from the same start, 30 steps each; `exact`: the same bits.
template <typename Ours, typename Reference, typename Options>
void expectSameAsLibTorch(StepPath path, Options options, bool exact) {
  const Params ours_params = cloneParameters(makeParameters());
  const Params reference_params = cloneParameters(makeParameters());
  auto ours = build<Ours>(ours_params, options);
  auto reference = build<Reference>(reference_params, options);
  ours->setStepPath(path);
  EXPECT_EQ(ours->nextStepPath(), path);
  run(*ours, ours_params, 0, 30);
  run(*reference, reference_params, 0, 30);
  if (exact) {
    expectEqual(ours_params, reference_params);
  } else {
    expectClose(ours_params, reference_params);
  }
  // The state, step counts included, is LibTorch's: the reference continues from ours as from its own.
  const Params resumed = cloneParameters(ours_params);
  auto continued = build<Reference>(resumed, options);
  load(*continued, saved(*ours));
  run(*continued, resumed, 30, 36);
  run(*reference, reference_params, 30, 36);
  expectClose(resumed, reference_params);
}

TEST(MultiTensorStepTest, ForeachAdamWIsLibTorchsStep) {
  expectSameAsLibTorch<FusedAdamW, torch::optim::AdamW>(StepPath::Foreach, adamwOptions(), /*exact=*/true);
}
TEST(MultiTensorStepTest, ForeachAdamIsLibTorchsStep) {
  expectSameAsLibTorch<FusedAdam, torch::optim::Adam>(StepPath::Foreach, adamOptions(), /*exact=*/true);
}
TEST(MultiTensorStepTest, ForeachSgdIsLibTorchsStep) {
  expectSameAsLibTorch<FusedSGD, torch::optim::SGD>(StepPath::Foreach, sgdOptions(false), /*exact=*/true);
  expectSameAsLibTorch<FusedSGD, torch::optim::SGD>(StepPath::Foreach, sgdOptions(true), /*exact=*/true);
  expectSameAsLibTorch<FusedSGD, torch::optim::SGD>(StepPath::Foreach, sgdOptions(false).momentum(0),
                                                    /*exact=*/true);
}
TEST(MultiTensorStepTest, ForeachRmspropIsLibTorchsStep) {
  expectSameAsLibTorch<ForeachRMSprop, torch::optim::RMSprop>(StepPath::Foreach, rmspropOptions(0),
                                                              /*exact=*/true);
  expectSameAsLibTorch<ForeachRMSprop, torch::optim::RMSprop>(StepPath::Foreach, rmspropOptions(0.9),
                                                              /*exact=*/true);
}
TEST(MultiTensorStepTest, ForeachAdagradIsLibTorchsStep) {
  expectSameAsLibTorch<ForeachAdagrad, torch::optim::Adagrad>(StepPath::Foreach, adagradOptions(),
                                                              /*exact=*/true);
}

TEST(MultiTensorStepTest, OnTheCpuTheDefaultIsTheStepOfBefore) {
  const Params params = makeParameters();
  auto adamw = build<FusedAdamW>(params, adamwOptions());
  auto sgd = build<FusedSGD>(params, sgdOptions(true));
  auto rmsprop = build<ForeachRMSprop>(params, rmspropOptions(0.9));
  auto adagrad = build<ForeachAdagrad>(params, adagradOptions());
  EXPECT_EQ(stepDescription(*adamw), "fused CPU step");
  for (const torch::optim::Optimizer* o : {static_cast<torch::optim::Optimizer*>(sgd.get()),
                                           static_cast<torch::optim::Optimizer*>(rmsprop.get()),
                                           static_cast<torch::optim::Optimizer*>(adagrad.get())}) {
    EXPECT_EQ(stepDescription(*o), "");
    EXPECT_FALSE(takesFusedStep(*o));
  }
  EXPECT_FALSE(adamw->stepsOnDevice());
  EXPECT_FALSE(adamw->capturable());
  EXPECT_FALSE(sgd->stepsOnDevice());
  sgd->setStepPath(StepPath::Foreach);
  EXPECT_EQ(stepDescription(*sgd), "foreach step");
  EXPECT_FALSE(sgd->stepsOnDevice());  // the foreach step reads host values: not a device step
}

TEST(MultiTensorStepTest, CenteredRmspropAndDoubleParametersTakeLibTorchsStep) {
  auto centered = build<ForeachRMSprop>(makeParameters(), rmspropOptions(0.9).centered(true));
  centered->setStepPath(StepPath::Foreach);
  EXPECT_EQ(centered->nextStepPath(), StepPath::LibTorch);
  Params doubles;
  for (const auto& p : makeParameters())
    doubles.push_back(p.detach().to(torch::kDouble).requires_grad_(true));
  auto adam = build<FusedAdam>(doubles, adamOptions());
  adam->setStepPath(StepPath::Foreach);
  EXPECT_EQ(adam->nextStepPath(), StepPath::LibTorch);
}

#if WB_HAS_FUSED_CPU_KERNELS
// LibTorch's fused kernels, CPU versions of the CUDA ones (2.4 on; this block is compiled only there).

TEST(MultiTensorStepTest, FusedAdamWKernelMatchesLibTorchsStep) {
  expectSameAsLibTorch<FusedAdamW, torch::optim::AdamW>(StepPath::Fused, adamwOptions(), /*exact=*/false);
}
TEST(MultiTensorStepTest, FusedAdamKernelMatchesLibTorchsStep) {
  expectSameAsLibTorch<FusedAdam, torch::optim::Adam>(StepPath::Fused, adamOptions(), /*exact=*/false);
}
TEST(MultiTensorStepTest, FusedSgdKernelMatchesLibTorchsStep) {
  expectSameAsLibTorch<FusedSGD, torch::optim::SGD>(StepPath::Fused, sgdOptions(false), /*exact=*/false);
  expectSameAsLibTorch<FusedSGD, torch::optim::SGD>(StepPath::Fused, sgdOptions(true), /*exact=*/false);
  expectSameAsLibTorch<FusedSGD, torch::optim::SGD>(StepPath::Fused, sgdOptions(false).momentum(0),
                                                    /*exact=*/false);
}

TEST(MultiTensorStepTest, FusedPathIsADeviceStep) {
  auto adamw = build<FusedAdamW>(makeParameters(), adamwOptions());
  adamw->setStepPath(StepPath::Fused);
  EXPECT_TRUE(adamw->stepsOnDevice());
  EXPECT_TRUE(adamw->capturable());
  EXPECT_EQ(stepDescription(*adamw), "fused step");
  auto sgd = build<FusedSGD>(makeParameters(), sgdOptions(true));
  sgd->setStepPath(StepPath::Fused);
  EXPECT_TRUE(sgd->stepsOnDevice());
  // Dampening has no zero-started buffer that matches LibTorch's first step: foreach.
  auto damped = build<FusedSGD>(makeParameters(), sgdOptions(false).dampening(0.1));
  damped->setStepPath(StepPath::Fused);
  EXPECT_EQ(damped->nextStepPath(), StepPath::Foreach);
}

// A found_inf of 1 leaves the weights, the moments and the step counts as they were; a grad_scale divides
// the gradients inside the kernel.
template <typename Ours, typename Reference, typename Options>
void expectScaledSteps(Options options, int first_skipped_step) {
  const Params ours_params = cloneParameters(makeParameters());
  const Params reference_params = cloneParameters(makeParameters());
  auto ours = build<Ours>(ours_params, options);
  auto reference = build<Reference>(reference_params, options);
  ours->setStepPath(StepPath::Fused);
  run(*ours, ours_params, 0, first_skipped_step);
  run(*reference, reference_params, 0, first_skipped_step);
  const std::string before = saved(*ours);
  const Params weights_before = cloneParameters(ours_params);

  const torch::Tensor scale = torch::full({1}, 1024.0f);
  const torch::Tensor inf = torch::ones({1});
  const torch::Tensor no_inf = torch::zeros({1});
  setGradients(ours_params, first_skipped_step);
  ours->stageLearningRates();
  ours->stepScaled(scale, inf);
  expectEqual(ours_params, weights_before);
  if (first_skipped_step > 0) {  // (a skipped first step makes the state, zero moments at step 0)
    EXPECT_EQ(saved(*ours), before) << "a skipped step changed the optimizer's state";
  }

  // Then scaled gradients with no inf: the reference's step on the true gradients.
  for (int step = first_skipped_step; step < first_skipped_step + 4; ++step) {
    for (auto& group : ours->param_groups()) group.options().set_lr(1e-2);
    for (auto& group : reference->param_groups()) group.options().set_lr(1e-2);
    setGradients(ours_params, step);
    setGradients(reference_params, step);
    for (const auto& p : ours_params) {
      if (p.grad().defined()) p.mutable_grad() = p.grad() * 1024;
    }
    ours->stageLearningRates();
    ours->stepScaled(scale, no_inf);
    reference->step();
  }
  expectClose(ours_params, reference_params);
  const Params resumed = cloneParameters(ours_params);
  auto continued = build<Reference>(resumed, options);
  load(*continued, saved(*ours));
  run(*continued, resumed, 40, 44);
  run(*reference, reference_params, 40, 44);
  expectClose(resumed, reference_params);
}

TEST(MultiTensorStepTest, FoundInfSkipsTheFusedAdamWStep) {
  expectScaledSteps<FusedAdamW, torch::optim::AdamW>(adamwOptions(), 5);
  expectScaledSteps<FusedAdamW, torch::optim::AdamW>(adamwOptions(), 0);  // before any state exists
}
TEST(MultiTensorStepTest, FoundInfSkipsTheFusedAdamStep) {
  expectScaledSteps<FusedAdam, torch::optim::Adam>(adamOptions(), 5);
}
TEST(MultiTensorStepTest, FoundInfSkipsTheFusedSgdStep) {
  expectScaledSteps<FusedSGD, torch::optim::SGD>(sgdOptions(true), 5);
  expectScaledSteps<FusedSGD, torch::optim::SGD>(sgdOptions(false), 0);  // a skipped first step: zero buffers
}

// Loading a checkpoint into the fused optimizer makes its device step counts from the loaded ones.
TEST(MultiTensorStepTest, FusedStepCountsComeFromALoadedCheckpoint) {
  const Params reference_params = cloneParameters(makeParameters());
  auto reference = build<torch::optim::AdamW>(reference_params, adamwOptions());
  run(*reference, reference_params, 0, 8);
  const Params ours_params = cloneParameters(reference_params);
  auto ours = build<FusedAdamW>(ours_params, adamwOptions());
  ours->setStepPath(StepPath::Fused);
  run(*ours, ours_params, 0, 2);  // device counts exist, then are replaced by the checkpoint's
  for (size_t i = 0; i < ours_params.size(); ++i) {
    torch::NoGradGuard no_grad;
    ours_params[i].copy_(reference_params[i]);
  }
  load(*ours, saved(*reference));
  run(*ours, ours_params, 8, 14);
  run(*reference, reference_params, 8, 14);
  expectClose(ours_params, reference_params);
}
#endif

}  // namespace
}  // namespace wb::multi_tensor_step_test
