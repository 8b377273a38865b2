// TorchScript export of torchvision's ResNet-18 (the resnet18 preset) at a small input: the module written,
// loaded back and run gives the engine's outputs, and its tensors keep the layer list's names (the outside
// names are metadata for weights files, not the export's keys). ONNX: onnx_export_test.cpp.

#include <gtest/gtest.h>
#include <torch/script.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "compress/model_artifact.h"
#include "export/torchscript_export.h"
#include "support/fashion_subset.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

TEST(TorchvisionTorchScript, Resnet18GivesTheEnginesOutputs) {
  const Shape shape = {1, 32, 32};
  ModelArtifact a = test::trainedArtifact(presetLayers("resnet18", shape, 10), shape, 2, 5);
  a.name = "resnet18";
  const torch::Tensor x = test::resized(test::fashion().train.x.slice(0, 3000, 3064), shape).contiguous();
  const torch::Tensor expected = makeInferenceModel(a)->forward(x);

  const fs::path file = fs::temp_directory_path() / ("wb-resnet18-" + std::to_string(::getpid()) + ".pt");
  torch::jit::Module module = torchScriptModule(a);
  saveTorchScript(module, file.string(), {});
  torch::jit::Module loaded = torch::jit::load(file.string());
  fs::remove(file);
  const torch::Tensor got = loaded.forward({x}).toTensor();
  ASSERT_EQ(got.sizes(), expected.sizes());
  EXPECT_LE((got - expected).abs().max().item<double>(), 1e-4 * (expected.abs().max().item<double>() + 1));

  std::set<std::string> names;
  for (const auto& p : loaded.named_parameters()) names.insert(p.name);
  EXPECT_TRUE(names.count("layers.4.layers.0.weight"));    // layer1.0.conv1
  EXPECT_TRUE(names.count("layers.8.shortcut.0.weight"));  // layer2.0.downsample.0
}

}  // namespace
}  // namespace wb
