// TorchScript export of torchvision's ResNet-18 (the resnet18 preset) at a small input: the module written,
// loaded back and run gives the engine's outputs, and its tensors keep the layer list's names (the outside
// names are metadata for weights files, not the export's keys); and of an encoder block with its own eps, as
// vit_b_16's. ONNX: onnx_export_test.cpp.

#include <gtest/gtest.h>
#include <torch/script.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "compress/model_artifact.h"
#include "export/torchscript_export.h"
#include "support/fashion_subset.h"
#include "support/temporary_folder.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

TEST(TorchvisionTorchScript, Resnet18GivesTheEnginesOutputs) {
  const Shape shape = {1, 32, 32};
  ModelArtifact a = test::trainedArtifact(presetLayers("resnet18", shape, 10), shape, 2, 5);
  a.name = "resnet18";
  const torch::Tensor x = test::resized(test::fashion().train.x.slice(0, 3000, 3064), shape).contiguous();
  const torch::Tensor expected = makeInferenceModel(a)->forward(x);

  const test::TemporaryFolder folder("resnet18");
  const fs::path file = folder.file("resnet18.pt");
  torch::jit::Module module = torchScriptModule(a);
  saveTorchScript(module, file.string(), {});
  torch::jit::Module loaded = torch::jit::load(file.string());
  const torch::Tensor got = loaded.forward({x}).toTensor();
  ASSERT_EQ(got.sizes(), expected.sizes());
  EXPECT_LE((got - expected).abs().max().item<double>(), 1e-4 * (expected.abs().max().item<double>() + 1));

  std::set<std::string> names;
  for (const auto& p : loaded.named_parameters()) names.insert(p.name);
  EXPECT_TRUE(names.count("layers.4.layers.0.weight"));    // layer1.0.conv1
  EXPECT_TRUE(names.count("layers.8.shortcut.0.weight"));  // layer2.0.downsample.0
}

// An encoder block's own layer-norm eps (torchvision's ViT: 1e-6) reaches the module: a large one here, so a
// module that fell back to 1e-5 would differ.
TEST(TorchvisionTorchScript, EncoderBlockEpsGivesTheEnginesOutputs) {
  const Shape shape = {1, 28, 28};
  const nlohmann::json layers = nlohmann::json::parse(R"([{"type": "patch_embed", "patch_size": 7, "dim": 16},
    {"type": "position_embedding"}, {"type": "encoder_block", "heads": 2, "eps": 0.5},
    {"type": "token_pool"}, {"type": "linear", "out_features": 10}])");
  ModelArtifact a = test::trainedArtifact(layers, shape, 20, 5);
  a.name = "encoder-eps";
  const torch::Tensor x = test::fashion().train.x.slice(0, 3000, 3064).contiguous();
  const torch::Tensor expected = makeInferenceModel(a)->forward(x);
  const torch::Tensor got = torchScriptModule(a).forward({x}).toTensor();
  EXPECT_LE((got - expected).abs().max().item<double>(), 1e-4 * (expected.abs().max().item<double>() + 1));
}

}  // namespace
}  // namespace wb
