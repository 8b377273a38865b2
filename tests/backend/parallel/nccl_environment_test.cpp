// The environment NCCL's process group reads (blocking waits, no process teardown) is set on the launching
// thread before the rank threads start, not by each rank thread while the others construct their process
// groups (setenv beside getenv is a data race). Here the CUDA ranks cannot join (no CUDA device): what is
// checked is that the environment was set all the same, by the launch, and that a user's choice is kept.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "parallel/data_parallel.h"

namespace wb {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "<unset>";
}

TEST(NcclEnvironment, IsSetByTheLaunchBeforeTheRankThreadsAndKeepsTheUsersChoice) {
  if (torch::cuda::is_available()) GTEST_SKIP() << "needs a machine without CUDA: the ranks must not join";
  ::unsetenv("TORCH_NCCL_BLOCKING_WAIT");
  ::setenv("TORCH_NCCL_ASYNC_ERROR_HANDLING", "3", 1);  // the user's
  RankThreadSettings settings;
  settings.world_size = 2;
  settings.group_options.timeout = std::chrono::seconds(30);
  DeferredRankGroup group0(0, 2, torch::Device("cuda:0"));
  DeferredRankGroup group1(1, 2, torch::Device("cuda:1"));
  std::vector<LocalRank> ranks(2);
  ranks[0].placement = {0, torch::Device("cuda:0")};
  ranks[0].group = &group0;
  ranks[1].placement = {1, torch::Device("cuda:1")};
  ranks[1].group = &group1;
  bool body_ran = false;
  const auto failure = trainLocalRanks(ranks, settings, [&](size_t) { body_ran = true; });
  EXPECT_TRUE(failure.has_value());  // no NCCL or no device here: the ranks fail to join
  EXPECT_FALSE(body_ran);
  EXPECT_EQ(env("TORCH_NCCL_BLOCKING_WAIT"), "1");
  EXPECT_EQ(env("TORCH_NCCL_ENABLE_MONITORING"), "0");
  EXPECT_EQ(env("TORCH_NCCL_ASYNC_ERROR_HANDLING"), "3");
}

}  // namespace
}  // namespace wb
