// train.cuda_graphs' decisions, driven on the CPU: the capture waits for a full batch (an epoch's short last
// batch is not captured), and a graph whose held tensors the optimizer replaced is dropped and captured
// again. The capture itself needs a GPU (tests/backend/gpu/gpu_cuda_graph_test.cpp).

#include "step/graph_capture_plan.h"

#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "optim/fused_adam.h"
#include "optim/fused_sgd.h"
#include "optim/multi_tensor_step.h"

namespace wb {
namespace {

TEST(GraphCapturePlan, AShortBatchAtCaptureTimeRunsEagerlyAndTheNextFullOneIsCaptured) {
  GraphCapturePlan plan(3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(plan.next(64, false, false), GraphAction::WarmUp);
  EXPECT_EQ(plan.next(10, false, false), GraphAction::Eager);  // the epoch's short last batch
  EXPECT_FALSE(plan.isCaptured());
  EXPECT_EQ(plan.next(64, false, false), GraphAction::Capture);
  plan.captured({});
  EXPECT_EQ(plan.next(64, true, true), GraphAction::Replay);
  EXPECT_EQ(plan.next(10, false, true), GraphAction::Eager);
  EXPECT_EQ(plan.next(64, true, true), GraphAction::Replay);
}

// A short batch during the warm-up raises nothing: the full ones set what full is.
TEST(GraphCapturePlan, AShortBatchInTheWarmUpDoesNotLowerTheFullSize) {
  GraphCapturePlan plan(2);
  EXPECT_EQ(plan.next(10, false, false), GraphAction::WarmUp);
  EXPECT_EQ(plan.next(64, false, false), GraphAction::WarmUp);
  EXPECT_EQ(plan.next(10, false, false), GraphAction::Eager);
  EXPECT_EQ(plan.next(64, false, false), GraphAction::Capture);
}

// Data smaller than one batch: every batch is as full as any.
TEST(GraphCapturePlan, BatchesAllOfOneShortSizeAreCaptured) {
  GraphCapturePlan plan(1);
  EXPECT_EQ(plan.next(10, false, false), GraphAction::WarmUp);
  EXPECT_EQ(plan.next(10, false, false), GraphAction::Capture);
}

TEST(GraphCapturePlan, AReplacedHeldTensorDropsTheGraphWarmsUpOnceAndCapturesAgain) {
  GraphCapturePlan plan(0);
  EXPECT_EQ(plan.next(8, false, false), GraphAction::Capture);
  const torch::Tensor a = torch::zeros({4});
  const torch::Tensor b = torch::zeros({4});
  plan.captured({a, b, torch::Tensor()});
  EXPECT_TRUE(plan.holds({a, b, torch::Tensor()}));
  EXPECT_TRUE(plan.holds({a, b.view({2, 2}), torch::Tensor()}));  // another view of the same memory
  EXPECT_FALSE(plan.holds({a, b.clone(), torch::Tensor()}));
  EXPECT_FALSE(plan.holds({a, b, torch::zeros({1})}));  // state made where there was none
  EXPECT_FALSE(plan.holds({a, b}));
  EXPECT_EQ(plan.takeDropped(), 0);
  EXPECT_EQ(plan.next(8, true, /*held_current=*/false), GraphAction::WarmUp);
  EXPECT_FALSE(plan.isCaptured());
  EXPECT_EQ(plan.takeDropped(), 1);
  EXPECT_EQ(plan.takeDropped(), 0);
  EXPECT_EQ(plan.next(8, false, false), GraphAction::Capture);
}

// What the graph holds of a real optimizer: a plain step keeps every tensor where it was; a load replaces
// the moments, so a replay after it would update memory that is no longer the optimizer's.
template <typename Optimizer, typename Options>
void expectALoadReplacesWhatTheGraphHolds(const Options& options) {
  torch::manual_seed(0);
  torch::Tensor w = torch::randn({3, 4}).requires_grad_(true);
  Optimizer optimizer(std::vector<torch::Tensor>{w}, options);
  const auto step = [&] {
    w.mutable_grad() = torch::randn_like(w);
    optimizer.step();
  };
  step();
  GraphCapturePlan plan(0);
  plan.captured(optimizer.graphTensors());
  step();
  EXPECT_TRUE(plan.holds(optimizer.graphTensors()));
  torch::serialize::OutputArchive out;
  optimizer.save(out);
  std::stringstream bytes;
  out.save_to(bytes);
  torch::serialize::InputArchive in;
  in.load_from(bytes);
  optimizer.load(in);
  EXPECT_FALSE(plan.holds(optimizer.graphTensors()));
}

TEST(GraphCapturePlan, ALoadReplacesTheAdamMomentsTheGraphHolds) {
  expectALoadReplacesWhatTheGraphHolds<FusedAdamW>(torch::optim::AdamWOptions(1e-3));
}

TEST(GraphCapturePlan, ALoadReplacesTheSgdMomentumTheGraphHolds) {
  expectALoadReplacesWhatTheGraphHolds<FusedSGD>(torch::optim::SGDOptions(0.1).momentum(0.9));
}

#if WB_HAS_FUSED_CPU_KERNELS
// On the fused path the step counts live in device tensors; a step on another path gives them back to the
// host and forgets them (returnStepCounts): the graph must not replay into them. Compiled where this
// LibTorch has the fused CPU kernels (2.4 on); before, no fused path exists and nothing is held beyond the
// moments.
TEST(GraphCapturePlan, StepCountsGivenBackToTheHostAreNoLongerHeld) {
  torch::Tensor w = torch::randn({5}).requires_grad_(true);
  FusedAdamW adamw(std::vector<torch::Tensor>{w}, torch::optim::AdamWOptions(1e-3));
  adamw.setStepPath(StepPath::Fused);
  ASSERT_EQ(adamw.nextStepPath(), StepPath::Fused);
  w.mutable_grad() = torch::ones_like(w);
  adamw.step();
  GraphCapturePlan plan(0);
  plan.captured(adamw.graphTensors());
  adamw.step();
  EXPECT_TRUE(plan.holds(adamw.graphTensors()));
  adamw.setStepPath(StepPath::Foreach);
  adamw.step();
  EXPECT_FALSE(plan.holds(adamw.graphTensors()));
}
#endif

}  // namespace
}  // namespace wb
