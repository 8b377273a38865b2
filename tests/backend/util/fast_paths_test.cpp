// The fast-path switches: what each sets, on a CPU build (the CUDA flags live in LibTorch's global context
// in every build; their effect is measured by scripts/gpu-check.sh).

#include "util/fast_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "workbench/system_info.h"

namespace wb {
namespace {

TEST(FastPaths, CudaBackendSwitchesSetTheGlobalContext) {
  TrainConfig train;
  train.cudnn_benchmark = false;
  train.tf32 = false;
  applyCudaBackendSwitches(train);
  EXPECT_FALSE(at::globalContext().benchmarkCuDNN());
  EXPECT_FALSE(at::globalContext().allowTF32CuBLAS());
  EXPECT_FALSE(at::globalContext().allowTF32CuDNN());
  train.cudnn_benchmark = true;
  train.tf32 = true;
  const std::string line = applyCudaBackendSwitches(train);
  EXPECT_TRUE(at::globalContext().benchmarkCuDNN());
  EXPECT_TRUE(at::globalContext().allowTF32CuBLAS());
  EXPECT_TRUE(at::globalContext().allowTF32CuDNN());
  EXPECT_NE(line.find("TF32 on"), std::string::npos) << line;
}

TEST(FastPaths, ChannelsLastConvertsConvWeightsOnlyAndKeepsValues) {
  TrainConfig train;
  EXPECT_FALSE(useChannelsLast(train, {1, 28, 28}));
  train.channels_last = true;
  EXPECT_TRUE(useChannelsLast(train, {1, 28, 28}));
  EXPECT_FALSE(useChannelsLast(train, {784}));  // vectors: nothing to gain

  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(3, 8, 3));
  torch::nn::Linear linear(4, 2);
  const torch::Tensor before = conv->weight.detach().clone();
  convertToChannelsLast({conv->weight, conv->bias, linear->weight});
  EXPECT_TRUE(conv->weight.is_contiguous(torch::MemoryFormat::ChannelsLast));
  EXPECT_FALSE(conv->weight.is_contiguous());  // really NHWC now (8x3x3x3 with C > 1)
  EXPECT_TRUE(conv->weight.requires_grad());
  EXPECT_TRUE(torch::equal(conv->weight, before));
  EXPECT_TRUE(linear->weight.is_contiguous());
  const auto x = torch::randn({2, 3, 8, 8}).contiguous(torch::MemoryFormat::ChannelsLast);
  const auto reference = torch::conv2d(x.contiguous(), before, conv->bias);
  EXPECT_TRUE(torch::allclose(conv->forward(x), reference, 1e-5, 1e-5));
}

TEST(FastPaths, DataStaysOnTheHostForTheCpu) {
  TrainConfig train;
  train.data_on_device = AutoSwitch::On;
  const DataPlacement p = chooseDataPlacement(train, torch::kCPU, 1000);
  EXPECT_FALSE(p.on_device);
  EXPECT_FALSE(p.reason.empty());
  train.data_on_device = AutoSwitch::Off;
  EXPECT_FALSE(chooseDataPlacement(train, torch::Device("cuda:0"), 1000).on_device);
  train.data_on_device = AutoSwitch::On;
  EXPECT_TRUE(chooseDataPlacement(train, torch::Device("cuda:0"), 1000).on_device);
}

TEST(FastPaths, BlasThreadsAreLoggedAndOverridable) {
  const SystemInfo info = querySystemInfo();
  const std::string automatic = configureThreads(1, 0);
  EXPECT_NE(automatic.find("1 intra-op"), std::string::npos) << automatic;
  const std::string chosen = configureThreads(1, 2);
  if (info.blas.rfind("OpenBLAS", 0) == 0) {
    EXPECT_NE(chosen.find("2 OpenBLAS (train.blas_threads)"), std::string::npos) << chosen;
    EXPECT_NE(automatic.find("1 OpenBLAS"), std::string::npos) << automatic;
  } else {
    EXPECT_NE(chosen.find("ignored"), std::string::npos) << chosen;
  }
  configureThreads(0, 0);
}

}  // namespace
}  // namespace wb
