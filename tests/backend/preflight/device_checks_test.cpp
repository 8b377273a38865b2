// train.devices as a whole, before training: several entries are data-parallel ranks, which must all be CPU
// ranks or all CUDA devices, each CUDA device once, with the collective backend this build has.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "distributed/device_selection.h"
#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

std::string messageAt(const std::vector<ValidationIssue>& issues, const std::string& path) {
  for (const auto& issue : issues) {
    if (issue.path == path) return issue.message;
  }
  return {};
}

TEST(DeviceChecks, OneDeviceIsAlwaysASet) {
  EXPECT_TRUE(checkDeviceSet({"cpu"}).empty());
  EXPECT_TRUE(checkDeviceSet({"cuda:0"}).empty());  // whether it exists is checkDevice's business
  EXPECT_TRUE(test::contains(messageAt(checkDeviceSet({}), "train.devices"), "no device"));
}

TEST(DeviceChecks, CpuAndCudaDoNotMix) {
  const std::vector<ValidationIssue> issues = checkDeviceSet({"cpu", "cuda:0"});
  const std::string message = messageAt(issues, "train.devices");
  EXPECT_TRUE(test::contains(message, "mixes CPU and CUDA devices (\"cpu\", \"cuda:0\")")) << message;
  EXPECT_TRUE(test::contains(message, "list only CUDA devices, or only \"cpu\"")) << message;
  EXPECT_EQ(issues.size(), 1u);
}

TEST(DeviceChecks, ACudaDeviceRunsOneRank) {
  const std::vector<ValidationIssue> issues = checkDeviceSet({"cuda:1", "cuda:0", "cuda"});
  EXPECT_EQ(messageAt(issues, "train.devices[2]"),
            "\"cuda\" is listed twice (it is cuda:0): each CUDA device runs one rank, name it once");
  EXPECT_EQ(messageAt(issues, "train.devices[0]"), "");
  EXPECT_EQ(messageAt(issues, "train.devices[1]"), "");
}

TEST(DeviceChecks, SeveralCpuRanksNeedGloo) {
  const std::string message = messageAt(checkDeviceSet({"cpu", "cpu"}), "train.devices");
#ifdef WB_WITH_GLOO
  EXPECT_EQ(message, "");
#else
  EXPECT_TRUE(test::contains(message, "this LibTorch build has no Gloo")) << message;
#endif
}

TEST(DeviceChecks, SeveralCudaDevicesNeedNccl) {
  const std::string message = messageAt(checkDeviceSet({"cuda:0", "cuda:1"}), "train.devices");
#ifdef WB_WITH_NCCL
  EXPECT_EQ(message, "");
#else
  EXPECT_TRUE(test::contains(message, "this LibTorch build has no NCCL")) << message;
#endif
}

TEST(DeviceChecks, CudaIndex) {
  EXPECT_EQ(cudaIndex("cuda"), 0);
  EXPECT_EQ(cudaIndex("cuda:3"), 3);
  EXPECT_EQ(cudaIndex("cuda:03"), 3);
  EXPECT_FALSE(cudaIndex("cuda:1x").has_value());
  EXPECT_FALSE(cudaIndex("cuda:").has_value());
  EXPECT_FALSE(cudaIndex("cpu").has_value());
  EXPECT_TRUE(test::contains(checkDevice("cuda:1x"), "not of the form cuda:N"));
}

TEST(DeviceChecks, CheckExperimentAcceptsTwoCpuRanks) {
  Experiment e = test::smallMlpExperiment(test::freshDir("device-checks-cpu2"));
  const ParseResult parsed = parseExperiment(nlohmann::json::parse(R"({"train": {"devices": "cpu:2"}})"));
  ASSERT_TRUE(parsed.ok()) << formatIssues(parsed.issues);
  e.train.devices = parsed.experiment.train.devices;
  const std::vector<ValidationIssue> issues = checkExperiment(e);
#ifdef WB_WITH_GLOO
  EXPECT_TRUE(issues.empty()) << formatIssues(issues);
#else
  EXPECT_TRUE(test::contains(messageAt(issues, "train.devices"), "no Gloo")) << formatIssues(issues);
#endif
}

TEST(DeviceChecks, CheckExperimentRefusesMixingAndKeepsTheAmpRule) {
  Experiment e = test::smallMlpExperiment(test::freshDir("device-checks-mix"));
  e.train.devices = {"cpu", "cuda:0"};
  e.train.amp = Precision::Fp16;
  const std::vector<ValidationIssue> issues = checkExperiment(e);
  EXPECT_TRUE(test::contains(messageAt(issues, "train.devices"), "mixes CPU and CUDA"))
      << formatIssues(issues);
  EXPECT_TRUE(test::contains(messageAt(issues, "train.amp"), "fp16 mixed precision needs CUDA devices"))
      << formatIssues(issues);
  for (const auto& issue : issues) {
    EXPECT_FALSE(test::contains(issue.message, "one device at a time")) << issue.message;
  }
  if (!torch::cuda::is_available()) {
    EXPECT_TRUE(test::contains(messageAt(issues, "train.devices[1]"), "not available"))
        << formatIssues(issues);
  }
}

}  // namespace
}  // namespace wb
