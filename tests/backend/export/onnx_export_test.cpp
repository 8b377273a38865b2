// ONNX export against two independent judges: python3-onnx's checker (full_check: the checker plus strict
// shape inference) reads every file, and ONNX Runtime (onnxruntime-node, tests/onnxruntime/run_onnx.mjs)
// runs it on real Fashion-MNIST test images, standardized like the engine's data, with outputs compared to
// the engine's own forward (makeInferenceModel). Briefly trained mlp, cnn, resnet and vit presets (float), a
// static int8 CNN and ResNet, a dynamic int8 MLP and a structured-pruned CNN; batches of 1, 37 and 500
// (dynamic batch); int8 files must hold INT8 weights and no float copy of them; refusals name the layer.
//
// ONNX Runtime comes from `scripts/test.sh` ((cd tests/onnxruntime && npm ci)); without tests/onnxruntime/
// node_modules the runtime comparisons skip and say how to get it.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/fashion_subset.h"
#include "compress/channel_pruning.h"
#include "compress/model_artifact.h"
#include "compress/quantization.h"
#include "data/dataset.h"
#include "export/onnx_export.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kOrtDir = std::string(WB_SOURCE_DIR) + "/tests/onnxruntime";

bool onnxRuntimeInstalled() { return fs::exists(kOrtDir + "/node_modules/onnxruntime-node"); }

#define SKIP_WITHOUT_ONNX_RUNTIME()                                                                       \
  if (!onnxRuntimeInstalled())                                                                           \
  GTEST_SKIP() << "ONNX Runtime is not installed (no tests/onnxruntime/node_modules): run scripts/test.sh, " \
                  "or (cd tests/onnxruntime && npm ci --no-audit --no-fund)"

// The files of this process, removed at exit.
class TempDir {
 public:
  TempDir() : m_path(fs::temp_directory_path() / ("wb-test-onnx-" + std::to_string(::getpid()))) {
    fs::remove_all(m_path);
    fs::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(m_path, ignored);
  }
  std::string path() const { return m_path.string(); }

 private:
  fs::path m_path;
};

std::string tempDir() {
  static const TempDir dir;
  return dir.path();
}

using test::fashion;
using test::resized;

torch::Tensor testImages(int64_t from, int64_t count, const Shape& shape) {
  return resized(fashion().test_x.slice(0, from, from + count), shape).contiguous();
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
    return resized(fashion().train_x.slice(0, from, from + 64), shape);
  };
}

QuantizeResult quantized(const ModelArtifact& a, const std::string& mode) {
  CompressPassConfig pass;
  pass.type = "quantize";
  pass.mode = mode;
  pass.observer = "histogram";
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
  const std::string cmd = std::string(WB_PYTHON) + " " + script + " " + onnx_path + " " + out + " > " + log + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "python3-onnx refuses " << onnx_path << ":\n" << readText(log);
    return json();
  }
  return json::parse(readText(out));
}

// The file run by ONNX Runtime on `x`.
torch::Tensor runOnnxRuntime(const std::string& onnx_path, const torch::Tensor& x) {
  const torch::Tensor input = x.to(torch::kFloat32).contiguous();
  const std::string in_path = onnx_path + ".in.f32";
  const std::string out_path = onnx_path + ".out.f32";
  const std::string log = onnx_path + ".ort.log";
  std::ofstream(in_path, std::ios::binary)
      .write(static_cast<const char*>(input.data_ptr()), static_cast<std::streamsize>(input.numel() * 4));
  std::string dims;
  for (int64_t d : input.sizes()) dims += (dims.empty() ? "" : ",") + std::to_string(d);
  const std::string cmd = "node " + kOrtDir + "/run_onnx.mjs " + onnx_path + " " + in_path + " " + dims + " " +
                          out_path + " > " + log + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "ONNX Runtime failed on " << onnx_path << ":\n" << readText(log);
    return {};
  }
  const std::string raw = readText(out_path);
  const int64_t n = static_cast<int64_t>(raw.size() / 4);
  return torch::from_blob(const_cast<char*>(raw.data()), {n}, torch::kFloat32).clone().view({input.size(0), -1});
}

struct Comparison {
  double max_diff = 0;  // largest |ONNX Runtime - engine| over all logits
  double top1 = 0;      // share of images where both pick the same class
  double logit_range = 0;
};

// Runs batches of 1, 37 and 500 test images through ONNX Runtime and the engine; the three together make the
// figures (every batch size must come back [B, 10]).
Comparison compareWithEngine(const ModelArtifact& a, const std::string& onnx_path, const std::string& label) {
  auto engine = makeInferenceModel(a);
  Comparison c;
  c.top1 = 1;
  int64_t images = 0;
  double agree = 0;
  for (const auto& [from, count] : std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {1, 37}, {38, 500}}) {
    const torch::Tensor x = testImages(from, count, a.input_shape);
    const torch::Tensor expected = engine->forward(x);
    const torch::Tensor got = runOnnxRuntime(onnx_path, x);
    if (!got.defined()) return c;
    EXPECT_EQ(got.sizes(), expected.sizes()) << label << " batch " << count;
    if (!got.sizes().equals(expected.sizes())) return c;
    c.max_diff = std::max(c.max_diff, (got - expected).abs().max().item<double>());
    agree += got.argmax(1).eq(expected.argmax(1)).sum().item<double>();
    images += count;
    c.logit_range = std::max(c.logit_range, (expected.max() - expected.min()).item<double>());
  }
  c.top1 = agree / static_cast<double>(images);
  std::printf("    [%s] vs engine on %lld images: max |diff| %.3g, top-1 agreement %.4f (logits span %.1f)\n",
              label.c_str(), static_cast<long long>(images), c.max_diff, c.top1, c.logit_range);
  return c;
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
      EXPECT_TRUE(info[1] != shape || shape.size() == 1) << name << " is a float tensor shaped like an int8 weight";
    }
  }
  std::printf("    initializers: %lld int8 values, %lld float values\n", static_cast<long long>(int8_elements),
              static_cast<long long>(float_elements));
  EXPECT_LT(float_elements, int8_elements / 10);
}

// Float models
// -----------------------------------------------------------------------------------------------------

// Float32 through different kernels (oneDNN/MLAS, different summation orders): 1e-4 on logits of this size.
constexpr double kFloatTolerance = 1e-4;

void expectFloatExportMatches(const ModelArtifact& a, const std::string& label) {
  const std::string path = exportFile(a, label);
  const json summary = pythonCheck(path);
  expectContract(summary, a);
  SKIP_WITHOUT_ONNX_RUNTIME();
  const Comparison c = compareWithEngine(a, path, label);
  EXPECT_LE(c.max_diff, kFloatTolerance) << label;
  EXPECT_EQ(c.top1, 1.0) << label;
}

TEST(OnnxExport, FloatMlpMatchesTheEngine) {
  const Shape shape = {1, 28, 28};
  expectFloatExportMatches(trained(presetLayers("mlp", shape, 10), shape, 60), "mlp");
}

TEST(OnnxExport, FloatCnnMatchesTheEngine) {
  const Shape shape = {1, 28, 28};
  expectFloatExportMatches(trained(presetLayers("cnn", shape, 10), shape, 30), "cnn");
}

TEST(OnnxExport, FloatResnetMatchesTheEngine) {
  const Shape shape = {1, 14, 14};  // half-size Fashion-MNIST keeps the preset quick
  const ModelArtifact a = trained(presetLayers("resnet", shape, 10), shape, 15);
  expectFloatExportMatches(a, "resnet");
}

TEST(OnnxExport, FloatVitMatchesTheEngine) {
  const Shape shape = {1, 28, 28};
  expectFloatExportMatches(trained(presetLayers("vit", shape, 10), shape, 20), "vit");
}

// The layer types the presets leave out: avgpool2d with padding, batchnorm1d, tanh, sigmoid, gelu, layernorm
// on features, dropout, identity; and tokens without a class token, pooled by their mean.
json everyOtherLayer() {
  return json::array({{{"type", "conv2d"}, {"out_channels", 8}, {"kernel_size", 3}, {"stride", 2}, {"padding", 1},
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
  const Shape shape = {1, 28, 28};
  expectFloatExportMatches(trained(everyOtherLayer(), shape, 30), "other-layers");
  const json tokens = json::array({{{"type", "patch_embed"}, {"patch_size", 7}, {"dim", 32}},
                                   {{"type", "position_embedding"}, {"cls_token", false}},
                                   {{"type", "encoder_block"}, {"heads", 2}, {"mlp_ratio", 1.5}},
                                   {{"type", "token_pool"}, {"mode", "mean"}},
                                   {{"type", "linear"}, {"out_features", 10}}});
  expectFloatExportMatches(trained(tokens, shape, 20), "tokens-mean");
}

// Static int8 with layers that stay float between int8 ones (tanh, batchnorm1d, sigmoid, gelu, layernorm) and
// an average pool on the int8 grid: the file quantizes where LibTorch does, with the same qparams.
TEST(OnnxExport, StaticInt8WithFloatLayersBetweenMatchesTheEngine) {
  const Shape shape = {1, 28, 28};
  const QuantizeResult q = quantized(trained(everyOtherLayer(), shape, 30), "static");
  ASSERT_FALSE(q.float_layers.empty());
  const std::string path = exportFile(q.artifact, "other-layers-int8-static");
  const json summary = pythonCheck(path);
  expectContract(summary, q.artifact);
  EXPECT_EQ(summary["initializers"]["layers.0.weight"][0], "INT8");
  EXPECT_EQ(summary["initializers"]["layers.5.weight"][0], "INT8");
  EXPECT_EQ(summary["initializers"]["layers.12.weight"][0], "INT8");
  SKIP_WITHOUT_ONNX_RUNTIME();
  const Comparison c = compareWithEngine(q.artifact, path, "other layers int8 static");
  const double out_scale = q.artifact.quantization["layers"][12]["output"]["scale"].get<double>();
  std::printf("    output quantization step %.4g: max diff = %.2f steps\n", out_scale, c.max_diff / out_scale);
  EXPECT_GE(c.top1, 0.99);
  EXPECT_LE(c.max_diff, 4 * out_scale);
}

// Structured pruning leaves a smaller dense net: the file has the smaller shapes and still matches.
TEST(OnnxExport, StructuredPrunedCnnMatchesTheEngine) {
  const Shape shape = {1, 28, 28};
  const ModelArtifact cnn = trained(presetLayers("cnn", shape, 10), shape, 30);
  CompressPassConfig pass;
  pass.method = "structured";
  pass.amount = 0.5;
  json record = json::object();
  ModelArtifact pruned = pruneChannels(cnn, pass, record);
  pruned.name = "pruned";
  const std::string path = exportFile(pruned, "cnn-pruned");
  const json summary = pythonCheck(path);
  expectContract(summary, pruned);
  EXPECT_EQ(summary["initializers"]["layers.0.weight"][1], json::array({16, 1, 5, 5}));
  EXPECT_EQ(summary["initializers"]["layers.3.weight"][1], json::array({32, 16, 5, 5}));
  SKIP_WITHOUT_ONNX_RUNTIME();
  const Comparison c = compareWithEngine(pruned, path, "cnn structured-pruned");
  EXPECT_LE(c.max_diff, kFloatTolerance);
}

// int8
// -----------------------------------------------------------------------------------------------------

// ONNX Runtime and LibTorch round activations differently (ties, the order of the int32 accumulation and of
// the bias), so a value may land one quantization step away, and that step travels on through later layers.
TEST(OnnxExport, StaticInt8CnnStaysInt8AndMatchesTheEngine) {
  const Shape shape = {1, 28, 28};
  const QuantizeResult q = quantized(trained(presetLayers("cnn", shape, 10), shape, 40), "static");
  const std::string path = exportFile(q.artifact, "cnn-int8-static");
  const json summary = pythonCheck(path);
  expectContract(summary, q.artifact);
  expectInt8Weights(summary, {"layers.0", "layers.3", "layers.7", "layers.10"});
  EXPECT_GE(summary["ops"].value("QuantizeLinear", 0), 5);
  SKIP_WITHOUT_ONNX_RUNTIME();
  const Comparison c = compareWithEngine(q.artifact, path, "cnn int8 static");
  const double out_scale = q.artifact.quantization["layers"][10]["output"]["scale"].get<double>();
  std::printf("    output quantization step %.4g: max diff = %.2f steps\n", out_scale, c.max_diff / out_scale);
  EXPECT_GE(c.top1, 0.99);
  EXPECT_LE(c.max_diff, 4 * out_scale);
}

TEST(OnnxExport, StaticInt8ResnetAddsOnTheEnginesGrids) {
  const Shape shape = {1, 14, 14};
  const QuantizeResult q = quantized(trained(presetLayers("resnet", shape, 10), shape, 15), "static");
  const std::string path = exportFile(q.artifact, "resnet-int8-static");
  const json summary = pythonCheck(path);
  expectContract(summary, q.artifact);
  expectInt8Weights(summary, {"layers.0", "layers.3.layers.0", "layers.3.layers.3", "layers.5.shortcut.0",
                              "layers.11"});
  SKIP_WITHOUT_ONNX_RUNTIME();
  const Comparison c = compareWithEngine(q.artifact, path, "resnet int8 static");
  const double out_scale = q.artifact.quantization["layers"][11]["output"]["scale"].get<double>();
  std::printf("    output quantization step %.4g: max diff = %.2f steps\n", out_scale, c.max_diff / out_scale);
  EXPECT_GE(c.top1, 0.99);
  EXPECT_LE(c.max_diff, 6 * out_scale);
}

TEST(OnnxExport, DynamicInt8MlpStaysInt8AndMatchesTheEngine) {
  const Shape shape = {1, 28, 28};
  const QuantizeResult q = quantized(trained(presetLayers("mlp", shape, 10), shape, 60), "dynamic");
  const std::string path = exportFile(q.artifact, "mlp-int8-dynamic");
  const json summary = pythonCheck(path);
  expectContract(summary, q.artifact);
  expectInt8Weights(summary, {"layers.1", "layers.4", "layers.6"});
  EXPECT_EQ(summary["ops"].value("MatMulInteger", 0), 3);
  EXPECT_EQ(summary["ops"].value("DynamicQuantizeLinear", 0), 3);
  SKIP_WITHOUT_ONNX_RUNTIME();
  const Comparison c = compareWithEngine(q.artifact, path, "mlp int8 dynamic");
  // No output grid here: the activations' scales come from each batch, so bound the error by the logits.
  EXPECT_GE(c.top1, 0.99);
  EXPECT_LE(c.max_diff, 0.02 * c.logit_range);
}

// Refusals
// -----------------------------------------------------------------------------------------------------

TEST(OnnxExport, TorchScriptArtifactIsRefusedWithTheFormatsThatTakeIt) {
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
  SKIP_WITHOUT_ONNX_RUNTIME();
  EXPECT_LE(compareWithEngine(b, path, "adaptive 12->4").max_diff, kFloatTolerance);
}

}  // namespace
}  // namespace wb
