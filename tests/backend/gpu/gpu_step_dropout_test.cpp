// The dropout layer on CUDA (model/layers/step_dropout.h): CUDA tensors draw from the device's own generator,
// which seedStepGenerator seeds, so the same seed draws the same mask there too. Skips without a GPU
// (test_gpu).

#include <gtest/gtest.h>

#include "model/layers/step_dropout.h"
#include "model/step_generator.h"

namespace wb {
namespace {

TEST(GpuStepDropout, OnCudaTheDevicesGeneratorIsSeeded) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  const torch::Tensor x = torch::arange(1, 2001, torch::kFloat).reshape({40, 50}).to(torch::Device("cuda:0"));
  StepDropout dropout(0.5);
  dropout->train();
  seedStepGenerator(torch::Device("cuda:0"), 21);
  EXPECT_EQ(stepGenerator(), nullptr);  // CUDA tensors draw from the device's generator
  const torch::Tensor first = dropout->forward(x).cpu();
  seedStepGenerator(torch::Device("cuda:0"), 21);
  EXPECT_TRUE(torch::equal(dropout->forward(x).cpu(), first));
  setStepGenerator(std::nullopt);
}

}  // namespace
}  // namespace wb
