// safetensors export read back by an independent reader that follows the specification
// (tests/fixtures/read_safetensors.py, not the safetensors library): header length, space padding to a multiple
// of 8, offsets contiguous from 0, string-only __metadata__; every tensor's name, dtype, shape and bytes equal
// the artifact's, for the trained CNN, a 50% structured-pruned one and a static int8 one (I8 weights, F32
// scales, I64 zero points, F32 biases).

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backend/train/test_experiments.h"
#include "compress/channel_pruning.h"
#include "compress/model_artifact.h"
#include "compress/quantization.h"
#include "data/dataset.h"
#include "export/safetensors_writer.h"
#include "workbench/compression.h"
#include "workbench/errors.h"
#include "workbench/export.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The run all export tests share (this file's and the safetensors tests' make the same one; whichever runs
// first trains it, the other reuses the folder): compressed/01-prune (structured 50%), 02-quantize (static
// int8 of it), 03-quantize (dynamic int8 of the original).
std::string sharedExportRun() {
  const fs::path root = fs::temp_directory_path() / ("wb-test-export-" + std::to_string(::getpid()));
  const fs::path ready = root / "ready";
  if (fs::exists(ready)) {
    std::ifstream in(ready);
    std::string run;
    std::getline(in, run);
    return run;
  }
  fs::remove_all(root);
  fs::create_directories(root);
  static std::string s_root;
  s_root = root.string();
  std::atexit([] { fs::remove_all(s_root); });
  Experiment e = test::smallMlpExperiment(root.string());
  e.name = "export-cnn";
  e.train.epochs = 1;
  e.model.preset = "";
  e.model.layers = json::parse(R"([
    {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1}, {"type": "batchnorm2d"},
    {"type": "relu"}, {"type": "maxpool2d", "kernel_size": 2},
    {"type": "residual", "layers": [
      {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1, "bias": false}, {"type": "batchnorm2d"},
      {"type": "relu"},
      {"type": "conv2d", "out_channels": 8, "kernel_size": 3, "padding": 1, "bias": false}, {"type": "batchnorm2d"}]},
    {"type": "relu"},
    {"type": "conv2d", "out_channels": 16, "kernel_size": 3, "padding": 1}, {"type": "relu"},
    {"type": "avgpool2d", "kernel_size": 2}, {"type": "flatten"},
    {"type": "linear", "out_features": 64}, {"type": "relu"}, {"type": "dropout", "p": 0.2},
    {"type": "linear", "out_features": 10}])");
  const RunSummary s = trainBlocking(e, [](EventBatch&&) {});
  if (s.status != RunStatus::Completed) throw std::runtime_error("test: the export run did not train");
  // The passes called directly (not through CompressionRun, which also measures every artifact).
  auto pass = [](const std::string& text) {
    const ParseResult r = parseExperiment(json{{"compress", {{"passes", json::array({json::parse(text)})}}}});
    if (!r.ok()) throw std::runtime_error("test: " + formatIssues(r.issues));
    return r.experiment.compress.passes.at(0);
  };
  const Dataset data = loadDataset(e.data, e.seed);
  int64_t next = 0;
  auto calibration = [&]() -> std::optional<torch::Tensor> {
    if (next + 64 > data.train_x.size(0)) return std::nullopt;
    next += 64;
    return data.train_x.slice(0, next - 64, next);
  };
  auto save = [&](ModelArtifact a, const std::string& name, const std::string& source, const json& record) {
    a.name = name;
    a.source = source;
    a.history.push_back(record);
    saveArtifact(a, s.run_dir + "/compressed/" + name);
    return a;
  };
  const ModelArtifact original = loadRunModel(s.run_dir, data.sample_shape, data.num_classes);
  json record;
  const ModelArtifact pruned =
      save(pruneChannels(original, pass(R"({"type": "prune", "method": "structured", "amount": 0.5})"), record),
           "01-prune", "original", record);
  auto log = [](const std::string&) {};
  save(quantizeArtifact(pruned, pass(R"({"type": "quantize", "mode": "static", "calibration_batches": 4})"),
                        calibration, log).artifact,
       "02-quantize", "01-prune", {{"pass", "quantize"}, {"mode", "static"}});
  save(quantizeArtifact(original, pass(R"({"type": "quantize", "mode": "dynamic"})"), calibration, log).artifact,
       "03-quantize", "original", {{"pass", "quantize"}, {"mode", "dynamic"}});
  std::ofstream(ready) << s.run_dir << "\n";
  return s.run_dir;
}

std::string readAll(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string fnv1a64(const torch::Tensor& tensor) {
  torch::Tensor t = tensor.detach().to(torch::kCPU);
  if (t.is_quantized()) t = t.int_repr();
  t = t.contiguous();
  const auto* p = static_cast<const unsigned char*>(t.data_ptr());
  uint64_t h = 0xCBF29CE484222325ull;
  for (int64_t i = 0; i < t.numel() * static_cast<int64_t>(t.element_size()); ++i) {
    h ^= p[i];
    h *= 0x100000001B3ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

json readBack(const std::string& file) {
  const std::string json_file = file + ".json";
  const std::string command = std::string(WB_PYTHON) + " " + WB_SOURCE_DIR + "/tests/fixtures/read_safetensors.py " +
                              file + " > " + json_file;
  if (std::system(command.c_str()) != 0) throw std::runtime_error("test: failed: " + command);
  return json::parse(readAll(json_file));
}

TEST(SafetensorsWriter, LayoutFollowsTheSpecification) {
  const std::string bytes = safetensorsBytes(
      {{"b", torch::tensor({1.5f, -2.0f})}, {"a", torch::tensor({int64_t{7}})}, {"c", torch::tensor({int8_t{-3}}, torch::kChar)}},
      {{"k", "v"}});
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  EXPECT_EQ(n % 8, 0u);
  ASSERT_EQ(bytes.size(), 8 + n + 8 + 8 + 1);
  const json header = json::parse(bytes.substr(8, n));
  EXPECT_EQ(header["__metadata__"], json({{"k", "v"}}));
  EXPECT_EQ(header["b"]["dtype"], "F32");
  EXPECT_EQ(header["b"]["data_offsets"], json({0, 8}));
  EXPECT_EQ(header["a"]["dtype"], "I64");
  EXPECT_EQ(header["a"]["data_offsets"], json({8, 16}));
  EXPECT_EQ(header["c"]["dtype"], "I8");
  EXPECT_EQ(header["c"]["shape"], json({1}));
  float first = 0;
  std::memcpy(&first, bytes.data() + 8 + n, 4);
  EXPECT_EQ(first, 1.5f);
  EXPECT_THROW(safetensorsBytes({{"x", torch::zeros({1})}, {"x", torch::zeros({1})}}, {}), UserError);
  EXPECT_THROW(safetensorsBytes({{"__metadata__", torch::zeros({1})}}, {}), UserError);
}

class SafetensorsExport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { s_run = sharedExportRun(); }
  static std::string s_run;
};
std::string SafetensorsExport::s_run;

TEST_F(SafetensorsExport, ReadsBackByTheSpecificationWithTheArtifactsTensors) {
  for (const std::string artifact : {"", "compressed/01-prune", "compressed/02-quantize"}) {
    SCOPED_TRACE(artifact.empty() ? "the trained model" : artifact);
    const std::string out = s_run + "/export/" + (artifact.empty() ? "model" : fs::path(artifact).filename().string()) + ".safetensors";
    const ExportResult r = exportModel({s_run, artifact, ExportFormat::Safetensors, out});
    EXPECT_EQ(r.bytes, static_cast<int64_t>(fs::file_size(out)));
    EXPECT_NE(r.python_snippet.find("safetensors"), std::string::npos);
    const json got = readBack(out);
    EXPECT_EQ(got["problems"], json::array()) << got["problems"].dump(2);

    const ModelArtifact a = artifact.empty() ? loadRunModel(s_run, {1, 28, 28}, 10) : loadArtifact(s_run + "/" + artifact);
    NamedTensors want = a.weights;
    want.insert(want.end(), a.buffers.begin(), a.buffers.end());
    want.insert(want.end(), a.quantized.begin(), a.quantized.end());
    ASSERT_EQ(got["tensors"].size(), want.size());
    std::map<std::string, json> by_name;
    for (const json& t : got["tensors"]) by_name[t["name"]] = t;
    for (const auto& [name, t] : want) {
      ASSERT_TRUE(by_name.count(name)) << name;
      const json& g = by_name[name];
      EXPECT_EQ(g["dtype"], safetensorsDtype(t)) << name;
      EXPECT_EQ(g["shape"], json(t.sizes().vec())) << name;
      EXPECT_EQ(g["fnv1a64"], fnv1a64(t)) << name;
    }
    // Written in the artifact's order, so the data offsets follow it too.
    for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(got["header_order"][i], want[i].first);
    if (!a.isQuantized()) {
      EXPECT_EQ(by_name["layers.1.num_batches_tracked"]["dtype"], "I64");
      EXPECT_EQ(by_name["layers.0.weight"]["dtype"], "F32");
    } else {
      EXPECT_EQ(by_name["layers.0.weight"]["dtype"], "I8");
      EXPECT_EQ(by_name["layers.0.weight.scale"]["dtype"], "F32");
      EXPECT_EQ(by_name["layers.0.weight.zero_point"]["dtype"], "I64");
      EXPECT_EQ(by_name["layers.0.bias"]["dtype"], "F32");
      EXPECT_EQ(json::parse(got["metadata"]["quantization"].get<std::string>())["mode"], "static");
      EXPECT_FALSE(got["metadata"]["quantized_engine"].get<std::string>().empty());
    }
    const json& meta = got["metadata"];
    EXPECT_EQ(meta["format"], "pt");
    EXPECT_EQ(meta["input_shape"], "[1,28,28]");
    EXPECT_EQ(meta["experiment_name"], "export-cnn");
    EXPECT_EQ(meta["artifact"], artifact.empty() ? "model" : artifact);
    EXPECT_EQ(json::parse(meta["class_names"].get<std::string>()).size(), 10u);
    EXPECT_EQ(json::parse(meta["history"].get<std::string>()).size(), a.history.size());
    EXPECT_TRUE(json::parse(meta["normalization"].get<std::string>()).contains("std"));
    EXPECT_EQ(json::parse(meta["layers"].get<std::string>()), a.layers);
    std::printf("[ figures  ] safetensors %-22s %9lld bytes  %.2f s\n", artifact.empty() ? "model" : artifact.c_str(),
                static_cast<long long>(r.bytes), r.seconds);
  }
}

TEST_F(SafetensorsExport, ReplacesAnExistingFileWhole) {
  const std::string out = s_run + "/export/replace.safetensors";
  fs::create_directories(s_run + "/export");
  std::ofstream(out) << std::string(10 * 1024 * 1024, 'x');  // longer than the export: no tail may survive
  const ExportResult r = exportModel({s_run, "compressed/02-quantize", ExportFormat::Safetensors, out});
  EXPECT_EQ(static_cast<int64_t>(fs::file_size(out)), r.bytes);
  EXPECT_EQ(readBack(out)["problems"], json::array());
}

}  // namespace
}  // namespace wb
