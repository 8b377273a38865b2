// train.cuda_graphs: what is captured, decided before the first step, and the log's line saying so or why
// not. The capture itself needs a GPU (tests/backend/gpu/gpu_cuda_graph_test.cpp); the choice does not.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "step/clip_grad_norm_part.h"
#include "step/graphed_step.h"
#include "support/function_part.h"
#include "util/cuda_graph.h"

namespace wb {
namespace {

struct ChoiceInputs {
  torch::Tensor w = torch::zeros({2}).requires_grad_(true);
  torch::optim::SGD sgd{std::vector<torch::Tensor>{w}, torch::optim::SGDOptions(0.1)};
  TrainConfig train;
  StepParts parts;
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(GraphChoice, OffSaysNothingAndAutoOnTheCpuSaysNothing) {
  ChoiceInputs s;
  s.train.cuda_graphs = AutoSwitch::Off;
  GraphChoice c = chooseCudaGraphs(s.train, torch::Device("cuda:0"), s.parts, s.sgd);
  EXPECT_FALSE(c.capture);
  EXPECT_EQ(c.reason, "");
  s.train.cuda_graphs = AutoSwitch::Auto;
  c = chooseCudaGraphs(s.train, torch::kCPU, s.parts, s.sgd);
  EXPECT_FALSE(c.capture);
  EXPECT_EQ(c.reason, "");
}

TEST(GraphChoice, OnTheCpuOnSaysGraphsAreCudas) {
  ChoiceInputs s;
  s.train.cuda_graphs = AutoSwitch::On;
  const GraphChoice c = chooseCudaGraphs(s.train, torch::kCPU, s.parts, s.sgd);
  EXPECT_FALSE(c.capture);
  EXPECT_TRUE(contains(c.reason, "train.cuda_graphs on: the step runs eagerly")) << c.reason;
  EXPECT_TRUE(contains(c.reason, "the device is cpu")) << c.reason;
}

TEST(GraphChoice, GradientAccumulationRunsEagerlyAndSaysWhy) {
  ChoiceInputs s;
  s.train.grad_accum = 4;
  const GraphChoice c = chooseCudaGraphs(s.train, torch::Device("cuda:0"), s.parts, s.sgd);
  EXPECT_FALSE(c.capture);
  EXPECT_TRUE(contains(c.reason, "train.grad_accum 4")) << c.reason;
}

TEST(GraphChoice, APartAGraphCannotRecordRunsEagerlyAndIsNamed) {
  ChoiceInputs s;
  auto allreduce = std::make_shared<test::FunctionPart>();
  allreduce->label = "allreduce";
  s.parts.add(allreduce);
  const GraphChoice c = chooseCudaGraphs(s.train, torch::Device("cuda:0"), s.parts, s.sgd);
  EXPECT_FALSE(c.capture);
  EXPECT_TRUE(contains(c.reason, "allreduce")) << c.reason;
}

// auto captures only what is known to be right: until the capture has passed on a GPU, nothing.
TEST(GraphChoice, AutoOnCudaRunsEagerlyUntilTheCaptureIsCheckedOnAGpu) {
  ChoiceInputs s;
  const GraphChoice c = chooseCudaGraphs(s.train, torch::Device("cuda:0"), s.parts, s.sgd);
  EXPECT_FALSE(c.capture);
  if (CudaGraph::available()) {
    EXPECT_TRUE(contains(c.reason, "not yet been checked on a GPU")) << c.reason;
    EXPECT_TRUE(contains(c.reason, "train.cuda_graphs on captures")) << c.reason;
  }
}

// Clipping is recorded with the step; LibTorch's SGD reads host values, so its step stays
// outside the graph (only forward, loss and backward are captured), and the line says so.
TEST(GraphChoice, ClippingIsCapturedTheHostOptimizerStepIsNot) {
  ChoiceInputs s;
  s.train.cuda_graphs = AutoSwitch::On;
  s.train.clip_grad_norm = 1.0;
  std::vector<torch::Tensor> params{s.w};
  s.parts.add(std::make_shared<ClipGradNormPart>(params, 1.0));
  EXPECT_TRUE(s.parts.uncapturable().empty());
  const GraphChoice c = chooseCudaGraphs(s.train, torch::Device("cuda:0"), s.parts, s.sgd);
  if (!CudaGraph::available()) {
    EXPECT_FALSE(c.capture);
    EXPECT_TRUE(contains(c.reason, "no CUDA")) << c.reason;
    return;
  }
  EXPECT_TRUE(c.capture);
  EXPECT_TRUE(contains(c.reason, "forward, loss and backward only")) << c.reason;
}

}  // namespace
}  // namespace wb
