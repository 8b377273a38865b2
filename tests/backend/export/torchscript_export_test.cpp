// TorchScript export on a small real run (a CNN with batch norm and a residual block, Fashion-MNIST): the
// trained model, a 50% structured-pruned one, a static int8 and a dynamic int8 one are exported and loaded
// back with torch::jit::load here and torch.jit.load in Debian's Python (tests/fixtures/
// check_torchscript_export.py), and their outputs on real test images compared with the engine's
// (makeInferenceModel). Float: within 1e-4 (the ops are the engine's own, in the same order). int8: within
// one step of the output's quantization scale (the same kernels, repacked at load). Refusals write nothing.

#include <gtest/gtest.h>
#include <torch/script.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "backend/export/export_test_run.h"
#include "compress/channel_pruning.h"
#include "compress/model_artifact.h"
#include "compress/quantization.h"
#include "data/dataset.h"
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

void writeFloats(const std::string& file, const torch::Tensor& t) {
  const torch::Tensor c = t.to(torch::kFloat32).contiguous();
  std::ofstream(file, std::ios::binary)
      .write(static_cast<const char*>(c.data_ptr()), static_cast<std::streamsize>(c.numel() * 4));
}

class TorchScriptExport : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_run = sharedExportRun();
    const ParseResult parsed = loadExperimentFile(s_run + "/experiment.json");
    s_images =
        loadDataset(parsed.experiment.data, parsed.experiment.seed).test.x.slice(0, 0, 256).contiguous();
  }
  static std::string s_run;
  static torch::Tensor s_images;
};
std::string TorchScriptExport::s_run;
torch::Tensor TorchScriptExport::s_images;

class TorchScriptModels : public TorchScriptExport, public ::testing::WithParamInterface<std::string> {};

// The largest output step of an int8 model: the quantization scale of its last int8 output.
double outputStep(const ModelArtifact& a) {
  double step = 0;
  std::function<void(const json&)> walk = [&](const json& list) {
    for (const json& l : list) {
      if (l.contains("output")) step = l["output"]["scale"].get<double>();
      if (l.contains("body")) walk(l["body"]);
    }
  };
  walk(a.quantization.at("layers"));
  return step;
}

// One case per model: the trained one, structured-pruned, static int8, dynamic int8.
TEST_P(TorchScriptModels, LoadsInPythonAndLibTorchWithTheEnginesOutputs) {
  {
    const std::string artifact = GetParam();
    const std::string out =
        s_run + "/export/" + (artifact.empty() ? "model" : fs::path(artifact).filename().string()) + ".pt";
    std::vector<double> seen;
    const ExportResult r =
        exportModel({s_run, artifact, ExportFormat::TorchScript, out}, [&](double f) { seen.push_back(f); });
    ASSERT_TRUE(fs::is_regular_file(out));
    EXPECT_EQ(r.bytes, static_cast<int64_t>(fs::file_size(out)));
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front(), 0.0);
    EXPECT_EQ(seen.back(), 1.0);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_NE(r.python_snippet.find("torch.jit.load"), std::string::npos);
    EXPECT_NE(r.cpp_snippet.find("torch::jit::load"), std::string::npos);

    const ModelArtifact a =
        artifact.empty() ? loadRunModel(s_run, {1, 28, 28}, 10) : loadArtifact(s_run + "/" + artifact);
    const torch::Tensor expected = makeInferenceModel(a)->forward(s_images);
    // Static int8: one step of the output's grid; dynamic int8 computes in float around int8 matmuls.
    const bool static_int8 = a.isQuantized() && a.quantization["mode"] == "static";
    const double tolerance = static_int8 ? outputStep(a) * 1.001 + 1e-6 : 1e-4;
    if (a.isQuantized()) {
      EXPECT_NE(r.python_snippet.find("torch.backends.quantized.engine = \"" +
                                      a.quantization["engine"].get<std::string>()),
                std::string::npos);
    }

    // LibTorch, in this process.
    torch::jit::ExtraFilesMap extra{{"metadata.json", ""}};
    torch::jit::Module loaded = torch::jit::load(out, torch::kCPU, extra);
    loaded.eval();
    torch::Tensor got;
    {
      torch::NoGradGuard no_grad;
      got = loaded.forward({s_images}).toTensor();
    }
    ASSERT_EQ(got.sizes(), expected.sizes());
    const double cpp_diff = (got - expected).abs().max().item<double>();
    EXPECT_LE(cpp_diff, tolerance);
    const json meta = json::parse(extra["metadata.json"]);
    EXPECT_EQ(meta["input_shape"], "[1,28,28]");
    EXPECT_EQ(json::parse(meta["class_names"].get<std::string>()).size(), 10u);
    EXPECT_EQ(meta["artifact"], artifact.empty() ? "model" : artifact);
    EXPECT_EQ(json::parse(meta["history"].get<std::string>()).size(), a.history.size());
    const json norm = json::parse(meta["normalization"].get<std::string>());
    EXPECT_NEAR(norm["mean"][0].get<double>(), 0.286, 0.02);
    EXPECT_TRUE(norm["pixels_in_0_255"].get<bool>());
    // Float parameters and buffers keep their state-dict names and shapes.
    if (!a.isQuantized()) {
      std::map<std::string, std::vector<int64_t>> names;
      for (const auto& p : loaded.named_parameters()) names[p.name] = p.value.sizes().vec();
      for (const auto& b : loaded.named_buffers()) names[b.name] = b.value.sizes().vec();
      for (const auto& [name, t] : a.weights) EXPECT_EQ(names[name], t.sizes().vec()) << name;
      for (const auto& [name, t] : a.buffers) EXPECT_EQ(names[name], t.sizes().vec()) << name;
    }

    // Python, from the file alone.
    const std::string x_file = out + ".x", y_file = out + ".y", json_file = out + ".json";
    writeFloats(x_file, s_images);
    writeFloats(y_file, expected);
    const std::string command = std::string(WB_PYTHON) + " " + WB_SOURCE_DIR +
                                "/tests/fixtures/check_torchscript_export.py " + out + " " + x_file + " " +
                                y_file + " 256,1,28,28 > " + json_file;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const json py = json::parse(test::readBytes(json_file));
    EXPECT_EQ(py["output_shape"], json({256, 10}));
    EXPECT_LE(py["max_abs_diff"].get<double>(), tolerance) << py["code"];
    EXPECT_GE(py["argmax_agree"].get<int>(), a.isQuantized() ? 250 : 256);
    EXPECT_EQ(py["extra_files"], json({"metadata.json"}));
    EXPECT_EQ(py["metadata"]["experiment_name"], "export-cnn");
    if (a.isQuantized()) {
      EXPECT_EQ(py["engine"], a.quantization["engine"]);
    } else {
      for (const auto& [name, t] : a.weights)
        EXPECT_EQ(py["state_dict"][name], json(t.sizes().vec())) << name;
    }
    std::printf(
        "[ figures  ] torchscript %-22s %9lld bytes  %.2f s  max|diff| C++ %.3g Python %.3g (tolerance "
        "%.3g)\n",
        artifact.empty() ? "model" : artifact.c_str(), static_cast<long long>(r.bytes), r.seconds, cpp_diff,
        py["max_abs_diff"].get<double>(), tolerance);
  }
}

std::string caseName(const ::testing::TestParamInfo<std::string>& info) {
  const char* names[] = {"Trained", "StructuredPruned", "StaticInt8", "DynamicInt8"};
  return names[info.index];
}

INSTANTIATE_TEST_SUITE_P(Export, TorchScriptModels,
                         ::testing::Values("", "compressed/01-prune", "compressed/02-quantize",
                                           "compressed/03-quantize"),
                         caseName);

TEST_F(TorchScriptExport, StructuredPrunedModelHasTheSmallerShapes) {
  const std::string out = s_run + "/export/pruned-shapes.pt";
  exportModel({s_run, "compressed/01-prune", ExportFormat::TorchScript, out});
  torch::jit::Module m = torch::jit::load(out);
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& p : m.named_parameters()) shapes[p.name] = p.value.sizes().vec();
  const ModelArtifact a = loadArtifact(s_run + "/compressed/01-prune");
  for (const auto& [name, t] : a.weights) EXPECT_EQ(shapes[name], t.sizes().vec()) << name;
  EXPECT_EQ(shapes["layers.6.weight"][0], 8);    // conv 16 -> 8 channels
  EXPECT_EQ(shapes["layers.10.weight"][0], 32);  // linear 64 -> 32 neurons
  EXPECT_EQ(shapes["layers.10.weight"][1], 8 * 7 * 7);
}

TEST_F(TorchScriptExport, RefusalsLeaveAnExistingFileAlone) {
  const std::string out = s_run + "/export/keep.pt";
  fs::create_directories(s_run + "/export");
  std::ofstream(out) << "keep me";
  try {
    exportModel({s_run, "compressed/09-nothing", ExportFormat::TorchScript, out});
    FAIL() << "a missing artifact was exported";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("compressed/09-nothing"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("compressed/01-prune"), std::string::npos) << e.hint();
  }
  EXPECT_THROW(exportModel({s_run + "/no-such-run", "", ExportFormat::TorchScript, out}), UserError);
  EXPECT_THROW(exportModel({s_run, "", ExportFormat::TorchScript, s_run + "/export"}),
               UserError);  // a folder
  EXPECT_EQ(test::readBytes(out), "keep me");
  for (const auto& entry : fs::directory_iterator(s_run + "/export")) {
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
  }
}

TEST(ExportFormats, NamesRoundTrip) {
  for (ExportFormat f : {ExportFormat::TorchScript, ExportFormat::Onnx, ExportFormat::Safetensors}) {
    ExportFormat back = ExportFormat::TorchScript;
    ASSERT_TRUE(exportFormatFromString(toString(f), back));
    EXPECT_EQ(back, f);
  }
  ExportFormat f;
  EXPECT_FALSE(exportFormatFromString("pickle", f));
  EXPECT_EQ(exportUnavailable(ExportFormat::TorchScript), "");
  EXPECT_EQ(exportUnavailable(ExportFormat::Safetensors), "");
}

}  // namespace
}  // namespace wb
