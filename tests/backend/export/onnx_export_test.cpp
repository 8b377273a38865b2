// ONNX export against two independent judges: python3-onnx's checker (full_check: the checker plus strict
// shape inference) reads every file, and ONNX Runtime (PyPI's onnxruntime in .venv/, tests/python/
// run_onnx.py) runs it on real Fashion-MNIST test images, standardized like the engine's data. Float files
// are compared with the engine's own forward (makeInferenceModel); int8 files, and the engine's int8 forward,
// each with the model's float simulation (makeInt8ReferenceModel), so that a kernel that is wrong on this CPU
// cannot hide behind another that is wrong the same way. Briefly trained mlp, cnn, resnet and vit presets
// (float), a static int8 CNN and ResNet, a dynamic int8 MLP and a structured-pruned CNN; batches of 1, 37 and
// 500 (dynamic batch); int8 files must hold INT8 weights and no float copy of them; the metadata ONNX Runtime
// reads (get_modelmeta) is the file's contract; refusals name the layer.
//
// ONNX Runtime comes from scripts/setup.sh (the README's test command); without it these tests fail.
// The int8 cases also run on an emulated AVX2 CPU (ctest entry test_export_avx2); why they hold on AVX-512
// without VNNI, which no emulator here offers, is written at kInt8Steps.

#include "export/onnx_export.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include "compress/channel_pruning.h"
#include "compress/int8_reference.h"
#include "compress/model_artifact.h"
#include "compress/quantization.h"
#include "data/dataset.h"
#include "export/onnx_plan_files.h"
#include "support/emulated_cpu.h"
#include "support/fashion_subset.h"
#include "support/mobile_layers.h"
#include "support/pypi_tools.h"
#include "support/temporary_folder.h"
#include "workbench/errors.h"
#include "workbench/export.h"
#include "workbench/system_info.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A build without ONNX export (pip's LibTorch brings its own protobuf): every case here skips with the
// reason, in a ctest entry of its own (test_export_onnx), so the rest of test_export reports as it is.
#define SKIP_WITHOUT_ONNX_EXPORT() \
  if (const std::string why = exportUnavailable(ExportFormat::Onnx); !why.empty()) GTEST_SKIP() << why

// The files of this process, removed at exit.
std::string tempDir() {
  static const test::TemporaryFolder dir("test-onnx");
  return dir.path();
}

using test::fashion;
using test::resized;

torch::Tensor testImages(int64_t from, int64_t count, const Shape& shape) {
  return resized(fashion().test.x.slice(0, from, from + count), shape).contiguous();
}

ModelArtifact trained(const json& layers, const Shape& shape, int steps) {
  ModelArtifact a = test::trainedArtifact(layers, shape, steps, 5);
  a.name = "test";
  return a;
}

std::function<std::optional<torch::Tensor>()> calibrationBatches(const Shape& shape) {
  auto next = std::make_shared<int>(0);
  return [next, shape]() -> std::optional<torch::Tensor> {
    const int64_t from = 2048 + 64 * (*next)++;
    return resized(fashion().train.x.slice(0, from, from + 64), shape);
  };
}

QuantizeResult quantized(const ModelArtifact& a, const std::string& mode) {
  CompressPassConfig pass;
  pass.type = PassType::Quantize;
  pass.mode = *fromWord<QuantizeMode>(mode);
  pass.observer = ObserverKind::Histogram;
  pass.calibration_batches = 4;
  return quantizeArtifact(a, pass, mode == "static" ? calibrationBatches(a.input_shape) : nullptr, {});
}

ExportMetadata metadataFor(const ModelArtifact& a) {
  ExportMetadata m;
  m.input_shape = a.input_shape;
  m.mean = {0.2860};
  m.std = {0.3530};
  m.pixels_in_0_255 = true;
  m.class_names = fashion().class_names;
  m.experiment_name = "onnx-test";
  m.artifact = a.name;
  return m;
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes the artifact's ONNX file; returns its path.
std::string exportFile(const ModelArtifact& a, const std::string& label) {
  const std::string path = tempDir() + "/" + label + ".onnx";
  const std::string bytes = onnxModelBytes(a, metadataFor(a));
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// python3-onnx's verdict and a summary of the file: full_check runs the checker and strict shape inference.
json pythonCheck(const std::string& onnx_path) {
  const std::string script = tempDir() + "/check.py";
  std::ofstream(script) << R"(import json, sys, collections
import onnx
m = onnx.load(sys.argv[1])
onnx.checker.check_model(m, full_check=True)
g = m.graph
dims = lambda v: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
json.dump({
  "ir_version": m.ir_version,
  "opset": [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")][0],
  "input": [g.input[0].name, dims(g.input[0])],
  "output": [g.output[0].name, dims(g.output[0])],
  "initializers": {t.name: [onnx.TensorProto.DataType.Name(t.data_type), list(t.dims)] for t in g.initializer},
  "ops": collections.Counter(n.op_type for n in g.node),
  "metadata": {p.key: p.value for p in m.metadata_props},
}, open(sys.argv[2], "w"))
)";
  const std::string out = onnx_path + ".json";
  const std::string log = onnx_path + ".check.log";
  const std::string cmd =
      std::string(WB_ONNX_PYTHON) + " " + script + " " + onnx_path + " " + out + " > " + log + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "python3-onnx refuses " << onnx_path << ":\n" << readText(log);
    return json();
  }
  return json::parse(readText(out));
}

// What ONNX Runtime made of a file: its first output on `x`, and the metadata it reads (get_modelmeta).
struct OrtRun {
  torch::Tensor output;
  json info;  // {"output", "dims", "inputs", "outputs", "metadata", "onnxruntime"}
};

OrtRun runOnnxRuntime(const std::string& onnx_path, const torch::Tensor& x) {
  const torch::Tensor input = x.to(torch::kFloat32).contiguous();
  const std::string in_path = onnx_path + ".in.f32";
  const std::string out_path = onnx_path + ".out.f32";
  const std::string log = onnx_path + ".ort.log";
  std::ofstream(in_path, std::ios::binary)
      .write(static_cast<const char*>(input.data_ptr()), static_cast<std::streamsize>(input.numel() * 4));
  std::string dims;
  for (int64_t d : input.sizes()) dims += (dims.empty() ? "" : ",") + std::to_string(d);
  const std::string cmd = test::pypiToolCommand("run_onnx.py") + " " + onnx_path + " " + in_path + " " +
                          dims + " " + out_path + " > " + log + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "ONNX Runtime failed on " << onnx_path << ":\n" << readText(log);
    return {};
  }
  OrtRun run;
  std::istringstream printed(readText(log));
  for (std::string line; std::getline(printed, line);) {
    if (line.rfind("{\"output\"", 0) == 0) run.info = json::parse(line, nullptr, false);
  }
  EXPECT_TRUE(run.info.is_object()) << "run_onnx.py printed no summary for " << onnx_path << ":\n"
                                    << readText(log);
  const std::string raw = readText(out_path);
  const int64_t n = static_cast<int64_t>(raw.size() / 4);
  run.output =
      torch::from_blob(const_cast<char*>(raw.data()), {n}, torch::kFloat32).clone().view({input.size(0), -1});
  return run;
}

struct Comparison {
  double max_diff = 0;  // largest |got - expected| over all logits
  double top1 = 0;      // share of images where both pick the same class
  double logit_range = 0;
};

using Forward = std::function<torch::Tensor(const torch::Tensor&)>;

// Runs batches of 1, 37 and 500 test images through both; the three together make the figures (every batch
// size must come back [B, 10]).
Comparison compareOnTestImages(const Shape& shape, const Forward& got_of, const Forward& expected_of,
                               const std::string& label) {
  Comparison c;
  int64_t images = 0;
  double agree = 0;
  for (const auto& [from, count] : std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 37}, {38, 500}}) {
    const torch::Tensor x = testImages(from, count, shape);
    const torch::Tensor expected = expected_of(x);
    const torch::Tensor got = got_of(x);
    if (!got.defined()) return c;
    EXPECT_EQ(got.sizes(), expected.sizes()) << label << " batch " << count;
    if (!got.sizes().equals(expected.sizes())) return c;
    c.max_diff = std::max(c.max_diff, (got - expected).abs().max().item<double>());
    agree += got.argmax(1).eq(expected.argmax(1)).sum().item<double>();
    images += count;
    c.logit_range = std::max(c.logit_range, (expected.max() - expected.min()).item<double>());
  }
  c.top1 = agree / static_cast<double>(images);
  std::printf("    [%s] on %lld images: max |diff| %.3g, top-1 agreement %.4f (logits span %.1f)\n",
              label.c_str(), static_cast<long long>(images), c.max_diff, c.top1, c.logit_range);
  return c;
}

// ONNX Runtime on the file, as a forward; the metadata it read is kept in `info` (the last batch's).
Forward onnxRuntimeForward(const std::string& onnx_path, json* info = nullptr) {
  return [onnx_path, info](const torch::Tensor& x) {
    OrtRun run = runOnnxRuntime(onnx_path, x);
    if (info != nullptr) *info = run.info;
    return run.output;
  };
}

Forward forwardOf(std::shared_ptr<InferenceModel> model) {
  return [model](const torch::Tensor& x) { return model->forward(x); };
}

Comparison compareWithEngine(const ModelArtifact& a, const std::string& onnx_path, const std::string& label) {
  return compareOnTestImages(a.input_shape, onnxRuntimeForward(onnx_path), forwardOf(makeInferenceModel(a)),
                             label + ": ONNX Runtime vs engine");
}

// The file's contract: opset 17, IR 8, input "input" [batch, ...], output "logits" [batch, 10], metadata.
void expectContract(const json& summary, const ModelArtifact& a) {
  ASSERT_FALSE(summary.is_null());
  EXPECT_EQ(summary["opset"], 17);
  EXPECT_EQ(summary["ir_version"], 8);
  json input_dims = json::array({"batch"});
  for (int64_t d : a.input_shape) input_dims.push_back(d);
  EXPECT_EQ(summary["input"], json::array({"input", input_dims}));
  EXPECT_EQ(summary["output"], json::array({"logits", json::array({"batch", 10})}));
  EXPECT_EQ(summary["metadata"].value("experiment_name", ""), "onnx-test");
  EXPECT_NE(summary["metadata"].value("class_names", "").find("T-shirt"), std::string::npos)
      << summary["metadata"].dump();
  EXPECT_NE(summary["metadata"].value("normalization", "").find("0.353"), std::string::npos);
  // What docs/export.md promises in every format: the model's own facts beside the data's.
  EXPECT_EQ(summary["metadata"].value("num_classes", ""), "10");
  EXPECT_EQ(summary["metadata"].value("export_format", ""), "onnx");
  EXPECT_FALSE(summary["metadata"].value("torch_version", "").empty());
  EXPECT_EQ(json::parse(summary["metadata"].value("layers", "null")), a.layers);
  if (a.isQuantized()) {
    EXPECT_EQ(summary["metadata"].value("quantized_engine", ""),
              a.quantization.value("engine", std::string()));
    const json q = json::parse(summary["metadata"].value("quantization", "{}"));
    // The integer ranges a runtime must know to read the scales (README, "int8 on every x86 CPU").
    EXPECT_EQ(q.value("weight_range", json()), json::array({-64, 63}));
    EXPECT_EQ(q.value("activation_range", json()), json::array({0, 255}));
  } else {
    EXPECT_FALSE(summary["metadata"].contains("quantization"));
  }
}

// ONNX Runtime reads the same metadata (get_modelmeta's custom_metadata_map) as ONNX's own reader.
void expectRuntimeReadsMetadata(const json& ort_info, const json& summary) {
  ASSERT_TRUE(ort_info.is_object());
  EXPECT_EQ(ort_info["metadata"], summary["metadata"]);
  EXPECT_EQ(ort_info["inputs"], json::array({"input"}));
  EXPECT_EQ(ort_info["outputs"], json::array({"logits"}));
}

// Every int8 layer's weight is an INT8 initializer with float per-channel scales, and the float weight exists
// nowhere in the file: no float initializer of its name or its shape, and all float initializers together
// (biases, scales) are a small fraction of the int8 weights.
void expectInt8Weights(const json& summary, const std::vector<std::string>& layers) {
  const json& inits = summary["initializers"];
  auto elements = [](const json& dims) {
    int64_t n = 1;
    for (int64_t d : dims.get<std::vector<int64_t>>()) n *= d;
    return n;
  };
  std::vector<json> int8_shapes;
  for (const std::string& p : layers) {
    ASSERT_TRUE(inits.contains(p + ".weight")) << p;
    EXPECT_EQ(inits[p + ".weight"][0], "INT8") << p;
    EXPECT_EQ(inits[p + ".weight.scale"][0], "FLOAT") << p;
    int8_shapes.push_back(inits[p + ".weight"][1]);
  }
  int64_t int8_elements = 0;
  int64_t float_elements = 0;
  for (const auto& [name, info] : inits.items()) {
    if (info[0] == "INT8") int8_elements += elements(info[1]);
    if (info[0] != "FLOAT") continue;
    float_elements += elements(info[1]);
    for (const json& shape : int8_shapes) {
      EXPECT_TRUE(info[1] != shape || shape.size() == 1)
          << name << " is a float tensor shaped like an int8 weight";
    }
  }
  std::printf("    initializers: %lld int8 values, %lld float values\n",
              static_cast<long long>(int8_elements), static_cast<long long>(float_elements));
  EXPECT_LT(float_elements, int8_elements / 10);
}

// Float models
// -----------------------------------------------------------------------------------------------------

// Float32 through different kernels (oneDNN/MLAS, different summation orders): 1e-4 on logits of this size.
constexpr double kFloatTolerance = 1e-4;

void expectFloatExportMatches(const ModelArtifact& a, const std::string& label) {
  ASSERT_PYPI_TOOLS();
  const std::string path = exportFile(a, label);
  const json summary = pythonCheck(path);
  expectContract(summary, a);
  json ort_info;
  const Comparison c =
      compareOnTestImages(a.input_shape, onnxRuntimeForward(path, &ort_info),
                          forwardOf(makeInferenceModel(a)), label + ": ONNX Runtime vs engine");
  expectRuntimeReadsMetadata(ort_info, summary);
  EXPECT_LE(c.max_diff, kFloatTolerance) << label;
  EXPECT_EQ(c.top1, 1.0) << label;
}

TEST(OnnxExport, FloatMlpMatchesTheEngine) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 28, 28};
  expectFloatExportMatches(trained(presetLayers("mlp", shape, 10), shape, 60), "mlp");
}

TEST(OnnxExport, FloatCnnMatchesTheEngine) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 28, 28};
  expectFloatExportMatches(trained(presetLayers("cnn", shape, 10), shape, 30), "cnn");
}

TEST(OnnxExport, FloatResnetMatchesTheEngine) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 14, 14};  // half-size Fashion-MNIST keeps the preset quick
  const ModelArtifact a = trained(presetLayers("resnet", shape, 10), shape, 15);
  expectFloatExportMatches(a, "resnet");
}

// torchvision's ResNet-18 (the resnet18 preset) at a small input: stem with max pool padding, basic blocks
// with projection shortcuts, relu after each sum.
TEST(OnnxExport, FloatTorchvisionResnet18MatchesTheEngine) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 32, 32};
  expectFloatExportMatches(trained(presetLayers("resnet18", shape, 10), shape, 2), "resnet18");
}

// Batch norms that keep the last batch's statistics (momentum 1): after two training steps a deep net's
// running statistics are still the initial ones, which shrink its activations layer by layer until the logits
// are nearly constant and a wrong layer would hardly show in them.
json withLastBatchStatistics(json layers) {
  for (json& layer : layers) {
    if (layer["type"] == "batchnorm2d") layer["momentum"] = 1.0;
    if (layer.contains("layers")) layer["layers"] = withLastBatchStatistics(layer["layers"]);
  }
  return layers;
}

// torchvision's MobileNetV3-Large, EfficientNet-B0 and ConvNeXt-Tiny (their presets) at 32x32: depthwise
// convs, squeeze-excitation, hardswish / SiLU, layer norms over channels, channel MLPs and layer scales.
TEST(OnnxExport, FloatTorchvisionMobileNetsMatchTheEngine) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 32, 32};
  ASSERT_PYPI_TOOLS();
  for (const char* preset : {"mobilenet_v3_large", "efficientnet_b0", "convnext_tiny"}) {
    const ModelArtifact a = trained(withLastBatchStatistics(presetLayers(preset, shape, 10)), shape, 2);
    const std::string path = exportFile(a, preset);
    expectContract(pythonCheck(path), a);
    const Comparison c = compareWithEngine(a, path, preset);
    // Logits of some hundreds after fifty layers: float32's different summation orders, relative to their
    // span (measured up to 3e-6; a hardsigmoid of ONNX's default slope gives 0.08).
    EXPECT_LE(c.max_diff, 2e-5 * c.logit_range + kFloatTolerance) << preset;
    EXPECT_EQ(c.top1, 1.0) << preset;
  }
}

// An encoder block's own layer-norm eps (torchvision's ViT: 1e-6) reaches the file: a large one here, so a
// file that fell back to 1e-5 would differ.
TEST(OnnxExport, EncoderBlockEpsMatchesTheEngine) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 28, 28};
  const json layers = json::parse(R"([{"type": "patch_embed", "patch_size": 7, "dim": 16},
    {"type": "position_embedding"}, {"type": "encoder_block", "heads": 2, "eps": 0.5},
    {"type": "token_pool"}, {"type": "linear", "out_features": 10}])");
  expectFloatExportMatches(trained(layers, shape, 20), "encoder-eps");
}

TEST(OnnxExport, FloatVitMatchesTheEngine) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 28, 28};
  expectFloatExportMatches(trained(presetLayers("vit", shape, 10), shape, 20), "vit");
}

// The layer types the presets leave out: avgpool2d with padding, batchnorm1d, tanh, sigmoid, gelu, layernorm
// on features, dropout, identity; and tokens without a class token, pooled by their mean.
json everyOtherLayer() {
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
                      {{"type", "batchnorm1d"}},
                      {{"type", "sigmoid"}},
                      {{"type", "dropout"}, {"p", 0.3}},
                      {{"type", "identity"}},
                      {{"type", "gelu"}},
                      {{"type", "layernorm"}},
                      {{"type", "linear"}, {"out_features", 10}}});
}

TEST(OnnxExport, EveryOtherLayerTypeMatchesTheEngine) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 28, 28};
  expectFloatExportMatches(trained(everyOtherLayer(), shape, 30), "other-layers");
  const json tokens = json::array({{{"type", "patch_embed"}, {"patch_size", 7}, {"dim", 32}},
                                   {{"type", "position_embedding"}, {"cls_token", false}},
                                   {{"type", "encoder_block"}, {"heads", 2}, {"mlp_ratio", 1.5}},
                                   {{"type", "token_pool"}, {"mode", "mean"}},
                                   {{"type", "linear"}, {"out_features", 10}}});
  expectFloatExportMatches(trained(tokens, shape, 20), "tokens-mean");
}

TEST(OnnxExport, MobileAndModernCnnLayersMatchTheEngine) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 28, 28};
  expectFloatExportMatches(trained(test::mobileLayers(), shape, 20), "mobile-layers");
}

// Structured pruning leaves a smaller dense net: the file has the smaller shapes and still matches.
TEST(OnnxExport, StructuredPrunedCnnMatchesTheEngine) {
  SKIP_WITHOUT_ONNX_EXPORT();
  ASSERT_PYPI_TOOLS();
  const Shape shape = {1, 28, 28};
  const ModelArtifact cnn = trained(presetLayers("cnn", shape, 10), shape, 30);
  CompressPassConfig pass;
  pass.method = PruneMethod::Structured;
  pass.amount = 0.5;
  json record = json::object();
  ModelArtifact pruned = pruneChannels(cnn, pass, record);
  pruned.name = "pruned";
  const std::string path = exportFile(pruned, "cnn-pruned");
  const json summary = pythonCheck(path);
  expectContract(summary, pruned);
  EXPECT_EQ(summary["initializers"]["layers.0.weight"][1], json::array({16, 1, 5, 5}));
  EXPECT_EQ(summary["initializers"]["layers.3.weight"][1], json::array({32, 16, 5, 5}));
  const Comparison c = compareWithEngine(pruned, path, "cnn structured-pruned");
  EXPECT_LE(c.max_diff, kFloatTolerance);
}

// int8
// -----------------------------------------------------------------------------------------------------

// How far a correct int8 kernel may be from the model's float simulation, in steps of the output's grid.
// Integer products and sums are exact on every kernel; what differs is the requantization after each int8
// layer: LibTorch's oneDNN and ONNX Runtime multiply the int32 sum by a float32 rescale and round (ties and
// the order of the bias differ), so a value lands one step away at some layer, and the next layers carry that
// step on, shrunk by their weights and scales. Measured: 0 or 1 step for the engine and ONNX Runtime on
// AVX512-VNNI and on emulated AVX2, for every model here.
// What the bar catches: a kernel that saturates. x86 without VNNI (AVX2, and AVX-512 without VNNI, e.g.
// Skylake-SP) has no int8 dot product that sums in 32 bits: oneDNN, FBGEMM and ONNX Runtime's MLAS multiply
// uint8 x int8 with vpmaddubsw, which adds each pair of products in a signed 16-bit lane, saturating at
// 32767. With 8-bit weights (255 x 128 x 2 = 65280) that cost 10 to 35 output steps on emulated AVX2 (3 on
// the CNN); the workbench's 7-bit weights bound every pair by 255 x 64 x 2 = 32640, on AVX2 and AVX-512 alike
// (the same instruction in wider registers), so the emulated AVX2 run (test_export_avx2) stands for both.
constexpr long kInt8Steps = 2;

// The quantized model's last output grid (its logits are on it).
double outputStep(const ModelArtifact& q, size_t last_layer) {
  return q.quantization["layers"][last_layer]["output"]["scale"].get<double>();
}

// The engine's int8 forward and ONNX Runtime on the exported file, each against the float simulation of the
// same int8 model: within kInt8Steps output steps and the same class for at least 99 % of the images.
void expectInt8MatchesItsSimulation(const ModelArtifact& q, const std::string& path, double step,
                                    const std::string& label) {
  std::shared_ptr<InferenceModel> simulation = makeInt8ReferenceModel(q);
  const Comparison engine = compareOnTestImages(q.input_shape, forwardOf(makeInferenceModel(q)),
                                                forwardOf(simulation), label + ": engine vs simulation");
  const Comparison runtime = compareOnTestImages(
      q.input_shape, onnxRuntimeForward(path), forwardOf(simulation), label + ": ONNX Runtime vs simulation");
  // The logits are on the output grid: each difference is a whole number of steps.
  const long engine_steps = std::lround(engine.max_diff / step);
  const long runtime_steps = std::lround(runtime.max_diff / step);
  std::printf("    output step %.4g: engine %ld steps, ONNX Runtime %ld steps from the simulation\n", step,
              engine_steps, runtime_steps);
  EXPECT_LE(engine_steps, kInt8Steps) << label << ": the engine's int8 kernels";
  EXPECT_LE(runtime_steps, kInt8Steps) << label << ": ONNX Runtime's int8 kernels";
  EXPECT_GE(engine.top1, 0.99) << label;
  EXPECT_GE(runtime.top1, 0.99) << label;
}

// Static int8 with layers that stay float between int8 ones (tanh, batchnorm1d, sigmoid, gelu, layernorm) and
// an average pool on the int8 grid: the file quantizes where LibTorch does, with the same qparams. (The case
// that failed on an AVX2 EPYC with 8-bit weights: 34 output steps in the engine.)
TEST(OnnxExport, StaticInt8WithFloatLayersBetweenMatchesItsSimulation) {
  SKIP_WITHOUT_ONNX_EXPORT();
  ASSERT_PYPI_TOOLS();
  test::expectTheCpuTheEntryPromises();
  const Shape shape = {1, 28, 28};
  const QuantizeResult q = quantized(trained(everyOtherLayer(), shape, 30), "static");
  ASSERT_FALSE(q.float_layers.empty());
  const std::string path = exportFile(q.artifact, "other-layers-int8-static");
  const json summary = pythonCheck(path);
  expectContract(summary, q.artifact);
  EXPECT_EQ(summary["initializers"]["layers.0.weight"][0], "INT8");
  EXPECT_EQ(summary["initializers"]["layers.5.weight"][0], "INT8");
  EXPECT_EQ(summary["initializers"]["layers.12.weight"][0], "INT8");
  expectInt8MatchesItsSimulation(q.artifact, path, outputStep(q.artifact, 12), "other layers int8 static");
}

TEST(OnnxExport, StaticInt8CnnStaysInt8AndMatchesItsSimulation) {
  SKIP_WITHOUT_ONNX_EXPORT();
  ASSERT_PYPI_TOOLS();
  test::expectTheCpuTheEntryPromises();
  const Shape shape = {1, 28, 28};
  const QuantizeResult q = quantized(trained(presetLayers("cnn", shape, 10), shape, 40), "static");
  const std::string path = exportFile(q.artifact, "cnn-int8-static");
  const json summary = pythonCheck(path);
  expectContract(summary, q.artifact);
  expectInt8Weights(summary, {"layers.0", "layers.3", "layers.7", "layers.10"});
  EXPECT_GE(summary["ops"].value("QuantizeLinear", 0), 5);
  expectInt8MatchesItsSimulation(q.artifact, path, outputStep(q.artifact, 10), "cnn int8 static");
}

TEST(OnnxExport, StaticInt8ResnetAddsOnTheEnginesGrids) {
  SKIP_WITHOUT_ONNX_EXPORT();
  ASSERT_PYPI_TOOLS();
  test::expectTheCpuTheEntryPromises();
  const Shape shape = {1, 14, 14};
  const QuantizeResult q = quantized(trained(presetLayers("resnet", shape, 10), shape, 15), "static");
  const std::string path = exportFile(q.artifact, "resnet-int8-static");
  const json summary = pythonCheck(path);
  expectContract(summary, q.artifact);
  expectInt8Weights(
      summary, {"layers.0", "layers.3.layers.0", "layers.3.layers.3", "layers.5.shortcut.0", "layers.11"});
  expectInt8MatchesItsSimulation(q.artifact, path, outputStep(q.artifact, 11), "resnet int8 static");
}

// Static int8: the convs (depthwise included) take int8 kernels, the rest runs in float between them.
TEST(OnnxExport, StaticInt8MobileLayersMatchItsSimulation) {
  SKIP_WITHOUT_ONNX_EXPORT();
  ASSERT_PYPI_TOOLS();
  test::expectTheCpuTheEntryPromises();
  const Shape shape = {1, 28, 28};
  const QuantizeResult q = quantized(trained(test::mobileLayers(), shape, 20), "static");
  const std::string path = exportFile(q.artifact, "mobile-layers-int8-static");
  const json summary = pythonCheck(path);
  expectContract(summary, q.artifact);
  // channel_linear, squeeze-excitation and layer scale have no int8 kernel: their tensors stay float.
  for (const char* conv :
       {"layers.0", "layers.3.layers.0", "layers.3.layers.3", "layers.4.layers.0", "layers.10"}) {
    EXPECT_EQ(summary["initializers"][std::string(conv) + ".weight"][0], "INT8") << conv;
  }
  EXPECT_EQ(summary["initializers"]["layers.4.layers.2.weight"][0], "FLOAT");
  expectInt8MatchesItsSimulation(q.artifact, path, outputStep(q.artifact, 10), "mobile layers int8 static");
}

TEST(OnnxExport, DynamicInt8MlpStaysInt8AndMatchesItsSimulation) {
  SKIP_WITHOUT_ONNX_EXPORT();
  ASSERT_PYPI_TOOLS();
  test::expectTheCpuTheEntryPromises();
  const Shape shape = {1, 28, 28};
  const QuantizeResult q = quantized(trained(presetLayers("mlp", shape, 10), shape, 60), "dynamic");
  const std::string path = exportFile(q.artifact, "mlp-int8-dynamic");
  const json summary = pythonCheck(path);
  expectContract(summary, q.artifact);
  expectInt8Weights(summary, {"layers.1", "layers.4", "layers.6"});
  EXPECT_EQ(summary["ops"].value("MatMulInteger", 0), 3);
  EXPECT_EQ(summary["ops"].value("DynamicQuantizeLinear", 0), 3);
  // No output grid here: each batch quantizes its activations with scales from its own range, and each
  // runtime computes that range and its rounding in its own float arithmetic, so a value near a rounding tie
  // can land a step away; bound the difference by the logits' span (measured: below 0.1 % of it).
  std::shared_ptr<InferenceModel> simulation = makeInt8ReferenceModel(q.artifact);
  const Comparison engine =
      compareOnTestImages(shape, forwardOf(makeInferenceModel(q.artifact)), forwardOf(simulation),
                          "mlp int8 dynamic: engine vs simulation");
  const Comparison runtime = compareOnTestImages(shape, onnxRuntimeForward(path), forwardOf(simulation),
                                                 "mlp int8 dynamic: ONNX Runtime vs simulation");
  EXPECT_LE(engine.max_diff, 0.005 * engine.logit_range);
  EXPECT_LE(runtime.max_diff, 0.005 * runtime.logit_range);
  EXPECT_GE(engine.top1, 0.99);
  EXPECT_GE(runtime.top1, 0.99);
}

// Refusals
// -----------------------------------------------------------------------------------------------------

TEST(OnnxExport, TorchScriptArtifactIsRefusedWithTheFormatsThatTakeIt) {
  SKIP_WITHOUT_ONNX_EXPORT();
  ModelArtifact a;
  a.name = "scripted";
  a.torchscript = "model.pt";
  a.input_shape = {1, 28, 28};
  a.num_classes = 10;
  try {
    onnxModelBytes(a, metadataFor(a));
    FAIL() << "a TorchScript artifact was exported";
  } catch (const UserError& e) {
    const std::string all = std::string(e.what()) + " " + e.hint();
    EXPECT_NE(all.find("scripted"), std::string::npos) << all;
    EXPECT_NE(all.find("TorchScript model"), std::string::npos) << all;
    EXPECT_NE(all.find("layer list"), std::string::npos) << all;
    EXPECT_NE(e.hint().find("safetensors"), std::string::npos) << e.hint();
  }
}

TEST(OnnxExport, AdaptivePoolWithUnevenWindowsIsRefusedNamingTheLayer) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 14, 14};
  const json layers = json::array({{{"type", "conv2d"}, {"out_channels", 4}, {"kernel_size", 3}},
                                   {{"type", "adaptive_avgpool2d"}, {"output_size", 5}},
                                   {{"type", "flatten"}},
                                   {{"type", "linear"}, {"out_features", 10}}});
  const ModelArtifact a = trained(layers, shape, 0);
  try {
    onnxModelBytes(a, metadataFor(a));
    FAIL() << "12x12 -> 5x5 adaptive pooling was exported";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("layers.1 (adaptive_avgpool2d)"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("TorchScript or safetensors"), std::string::npos) << e.hint();
  }
  // The same layer to 4x4 (12 / 4 = 3) is an AveragePool and exports.
  json even = layers;
  even[1]["output_size"] = 4;
  const ModelArtifact b = trained(even, shape, 0);
  const std::string path = exportFile(b, "adaptive-even");
  const json summary = pythonCheck(path);
  EXPECT_EQ(summary["ops"].value("AveragePool", 0), 1);
  ASSERT_PYPI_TOOLS();
  EXPECT_LE(compareWithEngine(b, path, "adaptive 12->4").max_diff, kFloatTolerance);
}

// The writer process
// -----------------------------------------------------------------------------------------------------

// The plan crosses to workbench-onnx-writer as files and comes out as the very bytes the in-process writer
// makes of it: the build whose LibTorch brings its own protobuf (pip's) writes every ONNX file that way.
// Checked on a static int8 CNN (FLOAT, INT8, UINT8 and INT64 initializers, int and ints attributes) and a ViT
// (float attributes: LayerNormalization's epsilon, a float constant per head).
TEST(OnnxExport, WriterProcessWritesTheInProcessBytes) {
  SKIP_WITHOUT_ONNX_EXPORT();
  if (!onnxWriterInProcess()) GTEST_SKIP() << "this build writes ONNX only through workbench-onnx-writer";
  const std::string writer = onnxWriterExecutable();
  ASSERT_FALSE(writer.empty()) << "workbench-onnx-writer was not found (build its target)";
  const Shape shape = {1, 28, 28};
  const QuantizeResult q = quantized(trained(presetLayers("cnn", shape, 10), shape, 10), "static");
  const ModelArtifact vit = trained(presetLayers("vit", shape, 10), shape, 0);
  for (const ModelArtifact* a : {&q.artifact, &vit}) {
    const std::string in_process = onnxModelBytes(*a, metadataFor(*a));
    const std::string path = tempDir() + "/through-writer.onnx";
    writeOnnxModelThroughWriter(onnxModelPlan(*a, metadataFor(*a)), path, writer);
    const std::string through_writer = readText(path);
    EXPECT_EQ(through_writer.size(), in_process.size()) << a->layers.dump();
    EXPECT_TRUE(through_writer == in_process)
        << "the writer process wrote other bytes than the in-process writer";
    EXPECT_FALSE(fs::exists(path + ".onnx-plan")) << "the plan's folder was left behind";
  }
}

// A plan ONNX's checker refuses (the exporter's bug) or a writer that cannot run: a UserError naming the file
// and the writer's own words, and nothing left where the file was to be.
TEST(OnnxExport, WriterProcessFailureNamesTheFileAndLeavesNothing) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const std::string writer = onnxWriterExecutable();
  ASSERT_FALSE(writer.empty()) << "workbench-onnx-writer was not found (build its target)";
  const Shape shape = {1, 28, 28};
  const ModelArtifact a = trained(presetLayers("mlp", shape, 10), shape, 0);
  onnx_export::OnnxModelPlan plan = onnxModelPlan(a, metadataFor(a));
  plan.nodes.front().op = "NoSuchOperator";
  const std::string path = tempDir() + "/refused.onnx";
  try {
    writeOnnxModelThroughWriter(plan, path, writer);
    FAIL() << "a plan with an unknown operator was written";
  } catch (const UserError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Could not write " + path), std::string::npos) << what;
    EXPECT_NE(what.find("workbench-onnx-writer"), std::string::npos) << what;
    EXPECT_NE(what.find("NoSuchOperator"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".onnx-plan"));
  for (const auto& entry : fs::directory_iterator(tempDir()))
    EXPECT_EQ(entry.path().filename().string().find("refused.onnx"), std::string::npos) << entry.path();
  try {
    writeOnnxModelThroughWriter(onnxModelPlan(a, metadataFor(a)), path, tempDir() + "/no-such-writer");
    FAIL() << "a missing writer wrote the file";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no-such-writer"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(path + ".onnx-plan"));
}

// The plan's files give back the very plan (every name, attribute, float bit and initializer byte) in every
// build: what the writer process reads is what the engine built.
TEST(OnnxExport, PlanFilesRoundTripExactly) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 28, 28};
  const QuantizeResult q = quantized(trained(presetLayers("cnn", shape, 10), shape, 10), "static");
  const ModelArtifact vit = trained(presetLayers("vit", shape, 10), shape, 0);
  for (const ModelArtifact* a : {&q.artifact, &vit}) {
    const onnx_export::OnnxModelPlan plan = onnxModelPlan(*a, metadataFor(*a));
    const std::string folder = tempDir() + "/round-trip-plan";
    fs::create_directories(folder);
    onnx_export::writePlanFiles(plan, folder);
    EXPECT_TRUE(onnx_export::readPlanFiles(folder) == plan)
        << "the plan changed on its way through its files";
    fs::remove_all(folder);
  }
}

// The plan's files refuse what they cannot be: an initializer whose bytes are fewer than its dims need.
TEST(OnnxExport, DamagedPlanFilesAreRefusedNamingTheEntry) {
  SKIP_WITHOUT_ONNX_EXPORT();
  const Shape shape = {1, 28, 28};
  const ModelArtifact a = trained(presetLayers("mlp", shape, 10), shape, 0);
  onnx_export::OnnxModelPlan plan = onnxModelPlan(a, metadataFor(a));
  const std::string name = plan.initializers.front().name;
  plan.initializers.front().raw.resize(plan.initializers.front().raw.size() - 4);
  const std::string folder = tempDir() + "/damaged-plan";
  fs::create_directories(folder);
  onnx_export::writePlanFiles(plan, folder);
  try {
    onnx_export::readPlanFiles(folder);
    FAIL() << "a short initializer was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("initializer " + name), std::string::npos) << e.what();
  }
  fs::remove_all(folder);
}

}  // namespace
}  // namespace wb
