// Clipping across a pipeline's stages: the gradients grouped by device, each group's squared norm summed into
// one total, and every group scaled by the one factor. Here every group is on the CPU (the stages' devices
// are CUDA devices on a GPU machine: scripts/gpu-check.sh's pipeline section), so the arithmetic across
// groups is checked against the one-group measure of the same gradients.

#include <gtest/gtest.h>

#include "step/clip_grad_norm_part.h"

namespace wb {
namespace {

std::vector<torch::Tensor> gradients(int64_t seed) {
  torch::manual_seed(seed);
  return {torch::randn({16, 8}) * 3.0, torch::randn({8}), torch::randn({4, 8}) * 2.0, torch::randn({4})};
}

TEST(PipelineClip, GroupsAreMeasuredAsOneAndScaledByOneFactor) {
  const std::vector<torch::Tensor> whole = gradients(3);
  const std::vector<torch::Tensor> split = gradients(3);
  // As two stages on two devices would hold them.
  const std::vector<std::vector<torch::Tensor>> groups = {{split[0], split[1]}, {split[2], split[3]}};
  const std::vector<std::vector<torch::Tensor>> one = {whole};
  const torch::Tensor total = clipGradientGroups(groups, torch::kCPU, 0.5);
  const torch::Tensor expected = clipGradientGroups(one, torch::kCPU, 0.5);
  ASSERT_GT(expected.item<double>(), 0.5);  // the clip bites
  EXPECT_NEAR(total.item<double>(), expected.item<double>(), 1e-5 * expected.item<double>());
  for (size_t i = 0; i < whole.size(); ++i) EXPECT_TRUE(torch::allclose(split[i], whole[i], 1e-5, 1e-7)) << i;
  // The clipped gradients' norm is the clip.
  std::vector<torch::Tensor> norms;
  for (const torch::Tensor& grad : split) norms.push_back(grad.norm());
  EXPECT_NEAR(torch::stack(norms).norm().item<double>(), 0.5, 1e-5);
}

TEST(PipelineClip, SumAcrossRanksSeesTheGroupsSquaredSum) {
  const std::vector<torch::Tensor> split = gradients(4);
  double squares = 0;
  for (const torch::Tensor& grad : split) squares += grad.square().sum().item<double>();
  double seen = -1;
  const torch::Tensor total = clipGradientGroups({{split[0]}, {split[1], split[2]}, {split[3]}}, torch::kCPU,
                                                 1e9, [&](torch::Tensor& t) { seen = t.item<double>(); });
  EXPECT_NEAR(seen, squares, 1e-4 * squares);
  EXPECT_NEAR(total.item<double>(), std::sqrt(squares), 1e-5 * std::sqrt(squares));
}

TEST(PipelineClip, GradientsGroupByDeviceLeavingOutParametersWithout) {
  std::vector<torch::Tensor> params = {torch::zeros({2}), torch::zeros({3}), torch::zeros({4})};
  params[0].mutable_grad() = torch::ones({2});
  params[2].mutable_grad() = torch::ones({4});
  const auto groups = gradientsByDevice(params);
  ASSERT_EQ(groups.size(), 1u);  // one device: the CPU
  ASSERT_EQ(groups[0].size(), 2u);
  EXPECT_EQ(groups[0][1].numel(), 4);
  EXPECT_TRUE(gradientsByDevice({torch::zeros({2})}).empty());
}

}  // namespace
}  // namespace wb
