// Fused SGD's momentum buffers in another layout or dtype than their parameters (a checkpoint saved with
// train.channels_last toggled): the fused kernel walks all three as one layout and would stop on its check,
// so the step takes the foreach ops instead, as Adam's moments do (AdamListStep::covers), and updates as
// LibTorch's SGD does. The fused path is forced on CPU tensors; where this LibTorch has the fused CPU kernel
// (2.x) this is the path a CUDA run takes.

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "optim/fused_sgd.h"
#include "optim/multi_tensor_step.h"
#include "torch_compat.h"

namespace wb {
namespace {

using StateMap = std::remove_reference_t<decltype(std::declval<torch::optim::Optimizer&>().state())>;

// An SGD with momentum over one 4-d weight whose buffer is `buffer` (as a load would bring it).
template <typename Optimizer>
void giveBuffer(Optimizer& optimizer, const torch::Tensor& w, const torch::Tensor& buffer) {
  auto state = std::make_unique<torch::optim::SGDParamState>();
  state->momentum_buffer(buffer);
  optimizer.state()[compat::optimizerStateKey<StateMap>(w)] = std::move(state);
}

void expectForeachStepLikeLibTorchs(const torch::Tensor& buffer) {
  torch::manual_seed(0);
  const torch::Tensor start = torch::randn({2, 3, 4, 5});
  const torch::Tensor grad = torch::randn({2, 3, 4, 5});
  const auto options = torch::optim::SGDOptions(0.1).momentum(0.9).nesterov(true);

  torch::Tensor ours = start.clone().requires_grad_(true);
  FusedSGD fused(std::vector<torch::Tensor>{ours}, options);
  fused.setStepPath(StepPath::Fused);
  giveBuffer(fused, ours, buffer.clone(torch::MemoryFormat::Preserve));
  EXPECT_EQ(fused.nextStepPath(), StepPath::Foreach);

  torch::Tensor theirs = start.clone().requires_grad_(true);
  torch::optim::SGD plain(std::vector<torch::Tensor>{theirs}, options);
  giveBuffer(plain, theirs, buffer.clone(torch::MemoryFormat::Preserve));

  ours.mutable_grad() = grad.clone();
  theirs.mutable_grad() = grad.clone();
  ASSERT_NO_THROW(fused.step());
  plain.step();
  EXPECT_TRUE(torch::allclose(ours, theirs, 1e-6, 1e-6));
}

TEST(FusedSgdLayout, ABufferInChannelsLastTakesTheForeachPath) {
  expectForeachStepLikeLibTorchs(torch::randn({2, 3, 4, 5}).contiguous(torch::MemoryFormat::ChannelsLast));
}

TEST(FusedSgdLayout, ABufferOfAnotherDtypeTakesTheForeachPath) {
  expectForeachStepLikeLibTorchs(torch::randn({2, 3, 4, 5}, torch::kFloat64));
}

// A buffer laid out like its weight keeps the fused path where this LibTorch has it.
TEST(FusedSgdLayout, ABufferLaidOutLikeItsWeightKeepsTheFusedPath) {
  torch::Tensor w = torch::randn({2, 3, 4, 5}).requires_grad_(true);
  FusedSGD fused(std::vector<torch::Tensor>{w}, torch::optim::SGDOptions(0.1).momentum(0.9));
  fused.setStepPath(StepPath::Fused);
  const StepPath before = fused.nextStepPath();
#if WB_HAS_FUSED_CPU_KERNELS
  EXPECT_EQ(before, StepPath::Fused);
#endif
  giveBuffer(fused, w, torch::zeros_like(w));
  EXPECT_EQ(fused.nextStepPath(), before);
}

}  // namespace
}  // namespace wb
