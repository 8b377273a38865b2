// model.weights with torchvision's own files (issue 40): resnet18's and vit_b_16's state dicts as torch.save
// wrote them (tests/fixtures/make_torchvision_parity.py, run here at test time with Debian's torchvision;
// nothing committed or downloaded) load into our presets key for key and give torchvision's outputs; a
// 10-class resnet18 gets a new head; a file of another architecture is named as such; timm's names for ViT
// are read.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "model/model.h"
#include "support/temporary_folder.h"
#include "support/test_helpers.h"
#include "weights/weights_loading.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::userErrorOf;

constexpr int64_t kSize = 64;

class PretrainedWeights : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = test::folderForThisTest("test-pretrained") + "/references";  // removed when the suite ends
    const std::string command = std::string(WB_TORCHVISION_PYTHON) + " " + WB_SOURCE_DIR +
                                "/tests/fixtures/make_torchvision_parity.py " + s_dir + " --size " +
                                std::to_string(kSize) + " resnet18 vit_b_16";
    ASSERT_EQ(std::system(command.c_str()), 0) << command << " (needs python3-torchvision: scripts/setup.sh)";
  }
  static std::string file(const std::string& name) { return (fs::path(s_dir) / name).string(); }

  static std::unique_ptr<Model> preset(const std::string& arch, int64_t classes) {
    ModelConfig config;
    config.preset = arch;
    torch::manual_seed(0);
    return buildModel(
        config,
        arch == "vit_b_16" ? std::vector<int64_t>{3, 224, 224} : std::vector<int64_t>{3, kSize, kSize},
        classes);
  }

  static WeightsLoadReport load(Model& model, const ModelWeightsSource& source, const std::string& arch) {
    ModelConfig config;
    config.preset = arch;
    return loadModelWeights(model, source, config, arch);
  }

  // torchvision's eval-mode output on its input (float64 reference), against ours.
  static void expectTorchvisionOutputs(Model& model, const std::string& arch) {
    torch::Tensor input, expected;
    for (auto& [name, tensor] : readWeightsFile(file(arch + ".io.pt")).tensors) {
      if (name == "input") input = tensor;
      if (name == "eval") expected = tensor;
    }
    torch::NoGradGuard no_grad;
    model.train(false);
    const torch::Tensor ours = model.forward(input).to(torch::kDouble);
    const double scale = expected.abs().max().item<double>();
    EXPECT_LE((ours - expected).abs().max().item<double>(), 1e-4 * scale + 1e-6) << arch;
  }

  static std::string s_dir;
};

std::string PretrainedWeights::s_dir;

TEST_F(PretrainedWeights, Resnet18LoadsKeyForKeyWithOrWithoutDdpsPrefix) {
  auto model = preset("resnet18", 1000);
  ModelWeightsSource source = readModelWeights(file("resnet18.pt"), *model);
  WeightsLoadReport report = load(*model, source, "resnet18");
  EXPECT_EQ(report.model_tensors, 122);  // 62 parameters and 60 batch-norm buffers
  EXPECT_EQ(report.loaded.size(), 122u);
  EXPECT_EQ(report.loaded.front(), "conv1.weight");
  EXPECT_TRUE(report.new_head.empty() && report.missing.empty() && report.unexpected.empty());
  expectTorchvisionOutputs(*model, "resnet18");

  for (auto& [name, tensor] : source.contents.tensors) name = "module." + name;
  model = preset("resnet18", 1000);
  report = load(*model, source, "resnet18");
  EXPECT_EQ(report.prefix, "module.");
  EXPECT_EQ(report.loaded.size(), 122u);
  expectTorchvisionOutputs(*model, "resnet18");
}

TEST_F(PretrainedWeights, Resnet18ForTenClassesGetsANewHead) {
  auto model = preset("resnet18", 10);
  const WeightsLoadReport report = load(*model, readModelWeights(file("resnet18.pt"), *model), "resnet18");
  EXPECT_EQ(report.loaded.size(), 120u);
  EXPECT_EQ(report.new_head, (std::vector<std::string>{"fc.weight", "fc.bias"}));
  EXPECT_TRUE(contains(weightsLoadHeadLine(report), "new head: 10 classes (the file's has 1000)"));
}

TEST_F(PretrainedWeights, AFileOfAnotherArchitectureIsNamedAsSuch) {
  auto resnet50 = preset("resnet50", 1000);
  const ModelWeightsSource resnet18 = readModelWeights(file("resnet18.pt"), *resnet50);
  const std::string partly = userErrorOf([&] { load(*resnet50, resnet18, "resnet50"); });
  EXPECT_TRUE(contains(partly,
                       "resnet18.pt does not fit resnet50: only 98 of 320 tensors fit: is this a resnet50 "
                       "file? 198 of the model's tensors missing from the file (layer1.0.conv3.weight"))
      << partly;
  EXPECT_TRUE(
      contains(partly, "layer1.0.conv1.weight: the model's [64, 64, 1, 1], the file's [64, 64, 3, 3]"))
      << partly;

  auto model = preset("resnet18", 1000);
  const ModelWeightsSource vit = readModelWeights(file("vit_b_16.pt"), *model);
  const std::string error = userErrorOf([&] { load(*model, vit, "resnet18"); });
  EXPECT_TRUE(contains(
      error, "0 of 122 tensors of the model match " + file("vit_b_16.pt") + ": is this a resnet18 file?"))
      << error;
}

// timm's vit_base_patch16_224 names, made from torchvision's file with timm's key names written out here.
std::string timmName(const std::string& torchvision) {
  static const std::vector<std::pair<std::string, std::string>> kWhole = {
      {"class_token", "cls_token"},
      {"encoder.pos_embedding", "pos_embed"},
      {"conv_proj.weight", "patch_embed.proj.weight"},
      {"conv_proj.bias", "patch_embed.proj.bias"},
      {"encoder.ln.weight", "norm.weight"},
      {"encoder.ln.bias", "norm.bias"},
      {"heads.head.weight", "head.weight"},
      {"heads.head.bias", "head.bias"}};
  for (const auto& [from, to] : kWhole)
    if (torchvision == from) return to;
  static const std::vector<std::pair<std::string, std::string>> kBlock = {
      {"ln_1.", "norm1."},
      {"self_attention.in_proj_weight", "attn.qkv.weight"},
      {"self_attention.in_proj_bias", "attn.qkv.bias"},
      {"self_attention.out_proj.", "attn.proj."},
      {"ln_2.", "norm2."},
      {"mlp.0.", "mlp.fc1."},
      {"mlp.3.", "mlp.fc2."}};
  const std::string layers = "encoder.layers.encoder_layer_";
  const size_t dot = torchvision.find('.', layers.size());
  std::string rest = torchvision.substr(dot + 1);
  for (const auto& [from, to] : kBlock)
    if (rest.rfind(from, 0) == 0) rest = to + rest.substr(from.size());
  return "blocks." + torchvision.substr(layers.size(), dot - layers.size()) + "." + rest;
}

TEST_F(PretrainedWeights, TimmsVitNamesAreRead) {
  auto model = preset("vit_b_16", 1000);
  ModelWeightsSource source = readModelWeights(file("vit_b_16.pt"), *model);
  for (auto& [name, tensor] : source.contents.tensors) name = timmName(name);
  EXPECT_EQ(source.contents.tensors.front().first, "cls_token");
  const WeightsLoadReport report = load(*model, source, "vit_b_16");
  EXPECT_EQ(report.loaded.size(), static_cast<size_t>(report.model_tensors));
  EXPECT_TRUE(report.unexpected.empty()) << report.unexpected.front();
  ASSERT_FALSE(report.notes.empty());
  EXPECT_TRUE(contains(report.notes.back(), "timm's names")) << report.notes.back();
  expectTorchvisionOutputs(*model, "vit_b_16");
}

}  // namespace
}  // namespace wb
