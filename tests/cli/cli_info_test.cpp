// `workbench-cli info`, what a GPU user runs first: what this build has (CUDA, NCCL, Gloo, Kineto) and what
// the driver's NVML says — loaded with its GPUs (a scripted NVML, tests/support/fake_nvml.cpp), or why not.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cli/cli_runner.h"
#include "workbench/build_features.h"

// A namespace of its own: the unity build puts this file beside others with helpers of the same names.
namespace cli_info_test {
namespace {

using wb::test::runCli;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliInfo, SaysWhatThisBuildHas) {
  const auto r = runCli("info");
  ASSERT_EQ(r.status, 0) << r.err;
  const wb::BuildFeatures features = wb::queryBuildFeatures();
  EXPECT_TRUE(has(r.out, wb::describeBuildFeatures(features))) << r.out;
  EXPECT_TRUE(has(r.out, std::string("Gloo ") + (WB_TEST_HAS_GLOO ? "yes" : "no (CPU ranks cannot train)")))
      << r.out;
  EXPECT_EQ(features.gloo, static_cast<bool>(WB_TEST_HAS_GLOO));
}

TEST(CliInfo, SaysWhetherNvmlLoadsAndWhichGpusItSees) {
  setenv("WORKBENCH_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  const auto missing = runCli("info");
  setenv("WORKBENCH_NVML_LIBRARY", WB_FAKE_NVML, 1);
  const auto fake = runCli("info");
  unsetenv("WORKBENCH_NVML_LIBRARY");
  ASSERT_EQ(missing.status, 0) << missing.err;
  EXPECT_TRUE(has(missing.out, "NVML: not loaded (cannot load /nonexistent/libnvidia-ml.so.1"))
      << missing.out;
  EXPECT_TRUE(has(missing.out, "The NVIDIA driver installs libnvidia-ml.so.1")) << missing.out;
  ASSERT_EQ(fake.status, 0) << fake.err;
  EXPECT_TRUE(has(fake.out, "NVML: " + std::string(WB_FAKE_NVML) + ", driver 999.1.2, 0 GPUs")) << fake.out;
}

}  // namespace
}  // namespace cli_info_test
