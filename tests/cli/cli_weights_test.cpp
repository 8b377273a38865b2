// model.weights from the terminal (issue 40): `check` prints the load report before anything trains, refuses
// a file that does not fit or holds code with the key and the file named, and `train --set model.weights=…`
// starts from the file.

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli/cli_runner.h"

namespace {

using wb::test::runCli;
using wb::test::tempDir;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string fixture(const std::string& name) {
  return std::string(WB_SOURCE_DIR) + "/tests/fixtures/" + name;
}

// The layer list of tests/fixtures/weights_load with 3 classes (the files have 5).
std::string writeExperiment(const std::string& dir) {
  const std::string file = dir + "/tiny-weights.json";
  std::ofstream(file) << R"({
  "data": {"dataset": "synthetic", "synthetic": {"samples": 64, "classes": 3, "shape": [1, 4, 4]}},
  "model": {"preset": "", "layers": [{"type": "conv2d", "out_channels": 4, "kernel_size": 3},
      {"type": "batchnorm2d"}, {"type": "relu"}, {"type": "flatten"}, {"type": "linear", "out_features": 3}],
      "weights": ")" + fixture("weights_load/tiny_module.pt") +
                             R"("},
  "train": {"epochs": 1, "batch_size": 16, "threads": 1, "devices": ["cpu"]},
  "output": {"runs_dir": ")" +
                             dir + R"(/runs"}
})";
  return file;
}

TEST(CliWeights, CheckPrintsTheLoadReport) {
  const std::string experiment = writeExperiment(tempDir("weights-check"));
  const auto r = runCli("check " + experiment);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "weights: loaded 7 of 9 tensors of the model from " +
                             fixture("weights_load/tiny_module.pt") +
                             " (torch-zip, 9 tensors), prefix \"module.\" stripped (detected)"))
      << r.out;
  EXPECT_TRUE(has(r.out, "  new head: 3 classes (the file's has 5)")) << r.out;
}

TEST(CliWeights, CheckRefusesFilesThatDoNotFitOrHoldCode) {
  const std::string experiment = writeExperiment(tempDir("weights-refuse"));
  const auto evil =
      runCli("check " + experiment + " --set model.weights=" + fixture("weights/torch1_evil_os_system.pt"));
  EXPECT_EQ(evil.status, 2);
  EXPECT_TRUE(has(evil.err, "model.weights: the pickle in " + fixture("weights/torch1_evil_os_system.pt") +
                                " calls posix.system"))
      << evil.err;
  const auto other = runCli("check " + experiment +
                            " --set model.weights=" + fixture("weights_load/other_arch.safetensors"));
  EXPECT_EQ(other.status, 2);
  EXPECT_TRUE(has(other.err, "model.weights: 0 of 9 tensors of the model match")) << other.err;
  EXPECT_TRUE(has(other.err, "fc1.weight")) << other.err;
  const auto prefix = runCli("check " + experiment + " --set model.weights_prefix=backbone.");
  EXPECT_EQ(prefix.status, 2);
  EXPECT_TRUE(has(prefix.err, "model.weights_prefix: no tensor in ")) << prefix.err;
  const auto word = runCli("check " + experiment + " --set model.weights_mismatch=ignore");
  EXPECT_EQ(word.status, 2);
  EXPECT_TRUE(has(word.err, "model.weights_mismatch")) << word.err;
}

TEST(CliWeights, TrainStartsFromTheFileGivenWithSet) {
  const std::string dir = tempDir("weights-train");
  const std::string experiment = writeExperiment(dir);
  const auto r =
      runCli("train " + experiment + " --set model.weights=" + fixture("weights_load/tiny.safetensors"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out + r.err, "weights: loaded 7 of 9 tensors of the model from " +
                                     fixture("weights_load/tiny.safetensors") + " (safetensors, 9 tensors)"))
      << r.out << r.err;
  EXPECT_TRUE(has(r.out + r.err, "new head: 3 classes (the file's has 5)")) << r.out << r.err;
}

}  // namespace
