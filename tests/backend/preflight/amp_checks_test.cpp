// train.amp against the devices, before training: bf16 anywhere, fp16 only on CUDA (with a hint to bf16).

#include <gtest/gtest.h>
#include <torch/torch.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "distributed/device_selection.h"
#include "support/test_experiments.h"
#include "workbench/experiment.h"

namespace wb {
namespace {

std::string issueAt(const std::vector<ValidationIssue>& issues, const std::string& path) {
  for (const auto& i : issues) {
    if (i.path == path) return i.message;
  }
  return {};
}

TEST(AmpChecks, Bf16RunsOnTheCpuAndOnCuda) {
  EXPECT_EQ(checkAmp(Precision::Bf16, {"cpu"}), "");
  EXPECT_EQ(checkAmp(Precision::Bf16, {"cuda:0"}), "");
  EXPECT_EQ(checkAmp(Precision::Off, {"cpu"}), "");
}

TEST(AmpChecks, Fp16NeedsCudaAndSuggestsBf16) {
  const std::string on_cpu = checkAmp(Precision::Fp16, {"cpu"});
  EXPECT_NE(on_cpu.find("CUDA"), std::string::npos) << on_cpu;
  EXPECT_NE(on_cpu.find("\"bf16\""), std::string::npos) << on_cpu;
  EXPECT_NE(checkAmp(Precision::Fp16, {"cuda:0", "cpu"}), "");  // every device must be CUDA
  const std::string on_cuda = checkAmp(Precision::Fp16, {"cuda:0"});
  if (torch::cuda::is_available()) {
    EXPECT_EQ(on_cuda, "");
  } else {
    EXPECT_NE(on_cuda.find("\"bf16\""), std::string::npos) << on_cuda;  // this machine has no GPU
  }
}

TEST(AmpChecks, CheckExperimentRejectsFp16WithoutCuda) {
  Experiment e = test::smallMlpExperiment(test::freshDir("amp-checks"));
  e.train.amp = Precision::Fp16;
  const std::string message = issueAt(checkExperiment(e), "train.amp");
  EXPECT_NE(message.find("needs CUDA"), std::string::npos) << message;
  EXPECT_NE(message.find("use \"bf16\""), std::string::npos) << message;
}

TEST(AmpChecks, CheckExperimentAcceptsBf16OnCpu) {
  Experiment e = test::smallMlpExperiment(test::freshDir("amp-checks-bf16"));
  e.train.amp = Precision::Bf16;
  EXPECT_EQ(issueAt(checkExperiment(e), "train.amp"), "");
}

}  // namespace
}  // namespace wb
