// safetensors export read back twice: by a reader that follows the specification alone
// (tests/fixtures/read_safetensors.py: header length, space padding to a multiple of 8, offsets contiguous
// from 0, string-only __metadata__) and by the safetensors library's own safe_open (PyPI's safetensors in
// .venv/, tests/python/load_safetensors.py), which users load the files with; every tensor's name, dtype,
// shape and bytes equal the artifact's, for the trained CNN, a 50% structured-pruned one and a static int8
// one (I8 weights, F32 scales, I64 zero points, F32 biases).

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backend/export/export_test_run.h"
#include "compress/channel_pruning.h"
#include "compress/model_artifact.h"
#include "compress/quantization.h"
#include "data/dataset.h"
#include "export/safetensors_writer.h"
#include "support/pypi_tools.h"
#include "support/test_experiments.h"
#include "support/test_helpers.h"
#include "workbench/compression.h"
#include "workbench/errors.h"
#include "workbench/export.h"
#include "workbench/training_run.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::sharedExportRun;

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
  const std::string command = std::string(WB_PYTHON) + " " + WB_SOURCE_DIR +
                              "/tests/fixtures/read_safetensors.py " + file + " > " + json_file;
  if (std::system(command.c_str()) != 0) throw std::runtime_error("test: failed: " + command);
  return json::parse(test::readBytes(json_file));
}

// The safetensors library's own loader: {"metadata", "tensors": {name: {"dtype", "shape", "fnv1a64"}}}.
json loadWithSafetensors(const std::string& file) {
  const std::string json_file = file + ".safe_open.json";
  const std::string command = test::pypiToolCommand("load_safetensors.py") + " " + file + " > " + json_file;
  if (std::system(command.c_str()) != 0) throw std::runtime_error("test: safe_open failed: " + command);
  return json::parse(test::readBytes(json_file));
}

// numpy's name for a tensor's dtype, as safe_open(framework="numpy") returns it.
std::string numpyDtype(const torch::Tensor& t) {
  switch (t.scalar_type()) {
    case torch::kFloat:
      return "float32";
    case torch::kDouble:
      return "float64";
    case torch::kHalf:
      return "float16";
    case torch::kLong:
      return "int64";
    case torch::kInt:
      return "int32";
    case torch::kChar:
      return "int8";
    case torch::kByte:
      return "uint8";
    case torch::kBool:
      return "bool";
    default:
      return "?";
  }
}

TEST(SafetensorsWriter, LayoutFollowsTheSpecification) {
  const std::string bytes = safetensorsBytes({{"b", torch::tensor({1.5f, -2.0f})},
                                              {"a", torch::tensor({int64_t{7}})},
                                              {"c", torch::tensor({int8_t{-3}}, torch::kChar)}},
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
  ASSERT_PYPI_TOOLS();
  for (const std::string artifact : {"", "compressed/01-prune", "compressed/02-quantize"}) {
    SCOPED_TRACE(artifact.empty() ? "the trained model" : artifact);
    const std::string out = s_run + "/export/" +
                            (artifact.empty() ? "model" : fs::path(artifact).filename().string()) +
                            ".safetensors";
    const ExportResult r = exportModel({s_run, artifact, ExportFormat::Safetensors, out});
    EXPECT_EQ(r.bytes, static_cast<int64_t>(fs::file_size(out)));
    EXPECT_NE(r.python_snippet.find("safetensors"), std::string::npos);
    const json got = readBack(out);
    EXPECT_EQ(got["problems"], json::array()) << got["problems"].dump(2);

    const ModelArtifact a =
        artifact.empty() ? loadRunModel(s_run, {1, 28, 28}, 10) : loadArtifact(s_run + "/" + artifact);
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
    // safe_open loads the same tensors: names, dtypes, shapes and bytes, and the same metadata.
    const json lib = loadWithSafetensors(out);
    EXPECT_EQ(lib["metadata"], got["metadata"]);
    ASSERT_EQ(lib["tensors"].size(), want.size());
    for (const auto& [name, t] : want) {
      ASSERT_TRUE(lib["tensors"].contains(name)) << name;
      const json& g = lib["tensors"][name];
      EXPECT_EQ(g["dtype"], numpyDtype(t)) << name;
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
    std::printf("[ figures  ] safetensors %-22s %9lld bytes  %.2f s\n",
                artifact.empty() ? "model" : artifact.c_str(), static_cast<long long>(r.bytes), r.seconds);
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
