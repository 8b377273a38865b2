// Issue 53: our fused AdamW step, five steps with one inf, against PyTorch's own
// torch.optim.AdamW(fused=True) bit for bit (tests/support/fused_adamw_steps.h,
// tests/python/fused_adamw_replay.py) — here on the CPU fused kernel, which LibTorch has from 2.4 (the pip
// build), against the .venv's pip torch; test_gpu writes the same steps on CUDA for scripts/gpu-check.sh to
// replay on the GPU machine.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "optim/multi_tensor_step.h"
#include "support/fused_adamw_steps.h"

namespace wb {
namespace {

#if WB_HAS_FUSED_CPU_KERNELS
TEST(FusedAdamwAgainstTorch, FiveCpuStepsWithOneInfAreTorchsFusedAdamwBitForBit) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("wb-fused-adamw-" + std::to_string(::getpid()) + ".pt"))
          .string();
  const test::FusedAdamwSteps steps = test::writeFusedAdamwSteps(torch::kCPU, path);
  EXPECT_TRUE(steps.skipped_step_left_weights) << "the step with an inf moved a parameter";
  ASSERT_EQ(steps.saved_steps.size(), 4u);
  for (const int64_t step : steps.saved_steps) EXPECT_EQ(step, 4) << "five steps, one skipped";
  const std::string command = std::string(WB_PYTHON) + " " + WB_SOURCE_DIR +
                              "/tests/python/fused_adamw_replay.py " + path + " cpu 2>&1";
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string said;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) said += buffer;
  const int status = ::pclose(pipe);
  std::filesystem::remove(path);
  EXPECT_EQ(status, 0) << said;
  EXPECT_NE(said.find("the same bits"), std::string::npos) << said;
}
#endif

}  // namespace
}  // namespace wb
