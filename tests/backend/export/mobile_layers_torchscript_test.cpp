// TorchScript export of the layer types MobileNetV3, EfficientNet and ConvNeXt add (grouped convs, batch norm
// with its own eps, hardswish / hardsigmoid / silu, squeeze_excitation, stochastic_depth, layernorm2d,
// channel_linear, layer_scale): the module written, loaded back and run gives the engine's outputs, float and
// static int8.

#include <gtest/gtest.h>
#include <torch/script.h>

#include <filesystem>

#include "compress/model_artifact.h"
#include "compress/quantization.h"
#include "export/torchscript_export.h"
#include "support/fashion_subset.h"
#include "support/mobile_layers.h"
#include "support/temporary_folder.h"

namespace wb {
namespace {

namespace fs = std::filesystem;

torch::Tensor mobileTestImages() {
  return test::fashion().train.x.slice(0, 3000, 3128).contiguous();
}

// The artifact's module saved to a file and loaded back, as a user's program would meet it.
torch::jit::Module savedAndLoaded(const ModelArtifact& a, const std::string& label) {
  torch::jit::Module m = torchScriptModule(a);
  const test::TemporaryFolder folder("mobile-" + label);
  const fs::path file = folder.file("model.pt");
  saveTorchScript(m, file.string(), {});
  torch::jit::Module loaded = torch::jit::load(file.string());
  return loaded;
}

TEST(MobileLayersTorchScript, FloatModelGivesTheEnginesOutputs) {
  const Shape shape = {1, 28, 28};
  ModelArtifact a = test::trainedArtifact(test::mobileLayers(), shape, 20, 5);
  a.name = "mobile";
  const torch::Tensor x = mobileTestImages();
  const torch::Tensor expected = makeInferenceModel(a)->forward(x);
  torch::jit::Module m = savedAndLoaded(a, "float");
  const torch::Tensor got = m.forward({x}).toTensor();
  EXPECT_LE((got - expected).abs().max().item<double>(), 1e-4);
  // The names are the layer list's: layer_scale on its layer, fc1 / fc2 inside the squeeze-excitation.
  std::set<std::string> names;
  for (const auto& p : m.named_parameters()) names.insert(p.name);
  EXPECT_TRUE(names.count("layers.4.layers.5.layer_scale"));
  EXPECT_TRUE(names.count("layers.3.layers.6.fc1.weight"));
  EXPECT_TRUE(names.count("layers.4.layers.2.weight"));
}

TEST(MobileLayersTorchScript, StaticInt8ModelGivesTheEnginesOutputs) {
  const Shape shape = {1, 28, 28};
  ModelArtifact a = test::trainedArtifact(test::mobileLayers(), shape, 20, 5);
  a.name = "mobile";
  CompressPassConfig pass;
  pass.type = PassType::Quantize;
  pass.mode = QuantizeMode::Static;
  pass.calibration_batches = 2;
  auto batch = std::make_shared<int>(0);
  const QuantizeResult q = quantizeArtifact(a, pass,
                                            [batch]() -> std::optional<torch::Tensor> {
                                              const int64_t from = 64 * (*batch)++;
                                              return test::fashion().train.x.slice(0, from, from + 64);
                                            },
                                            {});
  const torch::Tensor x = mobileTestImages();
  const torch::Tensor expected = makeInferenceModel(q.artifact)->forward(x);
  const torch::Tensor got = savedAndLoaded(q.artifact, "int8").forward({x}).toTensor();
  // The same int8 kernels repacked at load: within one step of the output's grid.
  const double step = q.artifact.quantization["layers"][10]["output"]["scale"].get<double>();
  EXPECT_LE((got - expected).abs().max().item<double>(), step * 1.001 + 1e-6);
  // The batch norms (eps 1e-3) were folded into their convs, the depthwise one included.
  const std::string folded = q.artifact.quantization["folded_batchnorms"].dump();
  EXPECT_NE(folded.find("layers.3.layers.3+layers.3.layers.4"), std::string::npos) << folded;
}

}  // namespace
}  // namespace wb
