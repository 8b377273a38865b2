// The engine's int8 kernels against the int8 model's own float simulation (compress/int8_reference.h), for
// every quantized engine of this LibTorch build: static models with convolutions, linear layers, fused relus,
// float layers between int8 ones and average pools on the int8 grid; the CNN preset; dynamic linear layers.
// Each within 3 steps of the output grid (static; why at kSteps) and 99 % of the same classes. The stored
// weights use 7 bits, the range that keeps x86 kernels without VNNI from saturating (observers.h); the two
// small models also run on an emulated AVX2 CPU (ctest entry test_compress_avx2), where 8-bit weights were 34
// output steps off.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>

#include "compress/int8_reference.h"
#include "compress/quantization.h"
#include "support/emulated_cpu.h"
#include "support/fashion_subset.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;
using test::fashion;
using test::resized;

// Every quint8 grid has at most a step's rounding between two correct kernels at each layer, carried on
// shrunk by the next layers: measured 0 or 1 step for oneDNN, x86 and FBGEMM with VNNI. Two kernels take
// another step: QNNPACK requantizes with a 32-bit fixed-point multiplier (gemmlowp's), and oneDNN without
// VNNI halves the int8 weights internally (its "scale adjust", rounding the odd ones), so this model measured
// 2 steps with QNNPACK everywhere and with oneDNN on emulated AVX2. A saturating kernel is 10 to 35 steps
// off.
constexpr long kSteps = 3;

std::function<std::optional<torch::Tensor>()> calibration(const Shape& shape) {
  auto next = std::make_shared<int>(0);
  return [next, shape]() -> std::optional<torch::Tensor> {
    const int64_t from = 2048 + 64 * (*next)++;
    return resized(fashion().train.x.slice(0, from, from + 64), shape);
  };
}

QuantizeResult quantized(const ModelArtifact& a, const std::string& mode, const std::string& engine) {
  CompressPassConfig pass;
  pass.type = PassType::Quantize;
  pass.mode = *fromWord<QuantizeMode>(mode);
  pass.engine = *fromWord<QuantizedEngine>(engine);
  pass.observer = ObserverKind::Histogram;
  pass.calibration_batches = 4;
  return quantizeArtifact(a, pass, mode == "static" ? calibration(a.input_shape) : nullptr, {});
}

// The last int8 layer's output step (the logits are on its grid).
double outputStep(const ModelArtifact& q) {
  double step = 0;
  for (const json& layer : q.quantization["layers"]) {
    if (layer.contains("output")) step = layer["output"]["scale"].get<double>();
  }
  return step;
}

struct Gap {
  double max_diff = 0;
  double top1 = 0;
  double logit_range = 0;
};

Gap engineAgainstSimulation(const ModelArtifact& q, const std::string& label) {
  const torch::Tensor x = resized(fashion().test.x.slice(0, 0, 500), q.input_shape);
  const torch::Tensor engine = makeInferenceModel(q)->forward(x);
  const torch::Tensor simulation = makeInt8ReferenceModel(q)->forward(x);
  Gap g;
  g.max_diff = (engine - simulation).abs().max().item<double>();
  g.top1 = engine.argmax(1).eq(simulation.argmax(1)).to(torch::kFloat64).mean().item<double>();
  g.logit_range = (simulation.max() - simulation.min()).item<double>();
  std::printf("    [%s] engine vs simulation on 500 images: max |diff| %.4g, top-1 agreement %.4f\n",
              label.c_str(), g.max_diff, g.top1);
  return g;
}

void expectStaticMatches(const ModelArtifact& q, const std::string& label) {
  const Gap g = engineAgainstSimulation(q, label);
  const double step = outputStep(q);
  ASSERT_GT(step, 0);
  // The logits are on the output grid: the difference is a whole number of steps.
  const long steps = std::lround(g.max_diff / step);
  std::printf("    output step %.4g: %ld steps\n", step, steps);
  EXPECT_LE(steps, kSteps) << label;
  EXPECT_GE(g.top1, 0.99) << label;
}

// Every int8 weight in [-64, 63], and some channel's largest weight at the range's end (the scale is set by
// it).
void expectSevenBitWeights(const ModelArtifact& q) {
  EXPECT_EQ(q.quantization["weight_range"], json::array({-64, 63}));
  EXPECT_EQ(q.quantization["format"], kInt8Format);
  EXPECT_TRUE(hasSevenBitWeights(q));
  for (const auto& [name, t] : q.quantized) {
    if (t.scalar_type() != torch::kChar) continue;
    EXPECT_GE(t.min().item<int64_t>(), -64) << name;
    EXPECT_LE(t.max().item<int64_t>(), 63) << name;
    EXPECT_GE(t.abs().max().item<int64_t>(), 63) << name;
  }
}

json withFloatLayersBetween() {
  return json::array({{{"type", "conv2d"},
                       {"out_channels", 8},
                       {"kernel_size", 3},
                       {"stride", 2},
                       {"padding", 1},
                       {"bias", false}},
                      {{"type", "batchnorm2d"}},
                      {{"type", "tanh"}},
                      {{"type", "avgpool2d"}, {"kernel_size", 3}, {"stride", 2}, {"padding", 1}},
                      {{"type", "flatten"}},
                      {{"type", "linear"}, {"out_features", 32}},
                      {{"type", "relu"}},
                      {{"type", "linear"}, {"out_features", 32}},
                      {{"type", "gelu"}},
                      {{"type", "layernorm"}},
                      {{"type", "linear"}, {"out_features", 10}}});
}

TEST(Int8Simulation, StaticWithFloatLayersBetweenMatchesOnEveryEngine) {
  test::expectTheCpuTheEntryPromises();
  const Shape shape = {1, 28, 28};
  const ModelArtifact a = test::trainedArtifact(withFloatLayersBetween(), shape, 30, 5);
  for (const std::string& engine : supportedQuantizedEngines()) {
    SCOPED_TRACE(engine);
    const QuantizeResult q = quantized(a, "static", engine);
    expectSevenBitWeights(q.artifact);
    expectStaticMatches(q.artifact, "float layers between, " + engine);
  }
  selectQuantizedEngine("auto");
}

TEST(Int8Simulation, DynamicMlpMatchesOnEveryEngine) {
  test::expectTheCpuTheEntryPromises();
  const Shape shape = {1, 28, 28};
  const ModelArtifact a = test::trainedArtifact(presetLayers("mlp", shape, 10), shape, 60, 5);
  for (const std::string& engine : supportedQuantizedEngines()) {
    SCOPED_TRACE(engine);
    const QuantizeResult q = quantized(a, "dynamic", engine);
    expectSevenBitWeights(q.artifact);
    // No output grid: each batch's own range sets the input's scale, computed in each kernel's float
    // arithmetic.
    const Gap g = engineAgainstSimulation(q.artifact, "mlp dynamic, " + engine);
    EXPECT_LE(g.max_diff, 0.005 * g.logit_range);
    EXPECT_GE(g.top1, 0.99);
  }
  selectQuantizedEngine("auto");
}

TEST(Int8Simulation, TheCnnPresetMatchesOnEveryEngine) {
  const Shape shape = {1, 28, 28};
  const ModelArtifact a = test::trainedArtifact(presetLayers("cnn", shape, 10), shape, 30, 5);
  for (const std::string& engine : supportedQuantizedEngines()) {
    SCOPED_TRACE(engine);
    expectStaticMatches(quantized(a, "static", engine).artifact, "cnn, " + engine);
  }
  selectQuantizedEngine("auto");
}

// The simulation is the int8 model's arithmetic, not the float model's: quantization moves the logits (by
// more than the kernels' rounding), and the classes mostly stay.
TEST(Int8Simulation, IsTheQuantizedArithmeticNotTheFloatModel) {
  const Shape shape = {1, 28, 28};
  const ModelArtifact a = test::trainedArtifact(withFloatLayersBetween(), shape, 30, 5);
  const QuantizeResult q = quantized(a, "static", "auto");
  const torch::Tensor x = resized(fashion().test.x.slice(0, 0, 500), shape);
  const torch::Tensor simulation = makeInt8ReferenceModel(q.artifact)->forward(x);
  const torch::Tensor floats = makeInferenceModel(a)->forward(x);
  const double gap = (simulation - floats).abs().max().item<double>();
  EXPECT_GT(gap, 2 * outputStep(q.artifact));
  EXPECT_GE(simulation.argmax(1).eq(floats.argmax(1)).to(torch::kFloat64).mean().item<double>(), 0.95);
  EXPECT_THROW(makeInt8ReferenceModel(a), UserError);  // a float artifact has no int8 arithmetic to simulate
}

}  // namespace
}  // namespace wb
