// model.weights loaded into a model (backend/src/weights/weights_loading.h) from files torch wrote:
// tests/fixtures/weights_load/, made by scripts/make_weights_load_fixtures.py with Debian's torch 1.13 for
// the layer list below. After loading, our model gives the torch model's outputs; a prefix is detected; a
// head whose class count changed is left fresh and reported; what does not fit is refused, or skipped and
// listed.

#include "weights/weights_loading.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>

#include "model/model.h"
#include "optim/optimizer_factory.h"
#include "run_folder/checkpoint_store.h"
#include "run_folder/training_state.h"
#include "support/temporary_folder.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::userErrorOf;

std::string loadFixture(const std::string& name) {
  return std::string(WB_SOURCE_DIR) + "/tests/fixtures/weights_load/" + name;
}

ModelConfig tinyConfig(int64_t classes) {
  ModelConfig config;
  config.preset = "";
  config.layers = nlohmann::json::parse(R"([{"type": "conv2d", "out_channels": 4, "kernel_size": 3},
      {"type": "batchnorm2d"}, {"type": "relu"}, {"type": "flatten"}, {"type": "linear", "out_features": 0}])");
  config.layers[4]["out_features"] = classes;
  return config;
}

std::unique_ptr<Model> tinyModel(int64_t classes = 5, int64_t channels = 1) {
  torch::manual_seed(0);
  return buildModel(tinyConfig(classes), {channels, 4, 4}, classes);
}

WeightsLoadReport loadInto(Model& model, const std::string& file, const ModelConfig& config) {
  return loadModelWeights(model, readModelWeights(file, model), config, "tinynet");
}

std::map<std::string, torch::Tensor> snapshot(Model& model) {
  std::map<std::string, torch::Tensor> copy;
  for (const auto& [name, tensor] : model.namedParameters()) copy[name] = tensor.detach().clone();
  for (const auto& [name, tensor] : model.namedBuffers()) copy[name] = tensor.detach().clone();
  return copy;
}

// The torch model's logits (eval mode) on the fixture's input, against ours.
void expectTorchOutputs(Model& model, double tolerance) {
  const NamedTensors expected = readSafetensorsFile(loadFixture("tiny_expected.safetensors")).tensors;
  model.train(false);
  torch::NoGradGuard no_grad;
  const torch::Tensor ours = model.forward(expected[0].second);
  EXPECT_TRUE(torch::allclose(ours, expected[1].second, tolerance, tolerance))
      << (ours - expected[1].second).abs().max().item<float>();
}

// A new empty folder, removed when the test ends.
std::string scratchDir(const std::string& name) {
  return test::folderForThisTest("weights-load-" + name);
}

TEST(WeightsLoading, FilesTorchWroteGiveTheTorchModelsOutputs) {
  for (const std::string file : {"tiny.pt", "tiny.safetensors", "tiny_scripted.pt"}) {
    SCOPED_TRACE(file);
    auto model = tinyModel();
    const WeightsLoadReport report = loadInto(*model, loadFixture(file), tinyConfig(5));
    EXPECT_EQ(report.loaded.size(), 9u);  // conv 2, batch norm 5 (its running statistics too), linear 2
    EXPECT_EQ(report.model_tensors, 9);
    EXPECT_TRUE(report.missing.empty() && report.unexpected.empty() && report.mismatched.empty());
    EXPECT_TRUE(report.new_head.empty());
    EXPECT_EQ(weightsLoadHeadLine(report), "");
    expectTorchOutputs(*model, 1e-5);
  }
}

// Layers named as torchvision names its modules: the file's keys are the model's outside names, and the
// report speaks them.
TEST(WeightsLoading, FilesAreMatchedByTheModelsOutsideNames) {
  ModelConfig config = tinyConfig(3);
  config.layers[0]["name"] = "conv1";
  config.layers[1]["name"] = "bn1";
  config.layers[4]["name"] = "fc";
  torch::manual_seed(0);
  auto model = buildModel(config, {1, 4, 4}, 3);
  const WeightsLoadReport report = loadInto(*model, loadFixture("tiny_named.safetensors"), config);
  EXPECT_EQ(report.loaded.size(), 7u);
  EXPECT_EQ(report.loaded.front(), "conv1.weight");
  EXPECT_EQ(report.new_head, (std::vector<std::string>{"fc.weight", "fc.bias"}));
  EXPECT_TRUE(report.missing.empty() && report.unexpected.empty()) << report.unexpected.size();
  EXPECT_EQ(weightsLoadHeadLine(report),
            "new head: 3 classes (the file's has 5), initialized fresh: fc.weight, fc.bias");
}

TEST(WeightsLoading, HalfPrecisionFilesAreConvertedWithANote) {
  auto model = tinyModel();
  const WeightsLoadReport report = loadInto(*model, loadFixture("tiny_fp16.safetensors"), tinyConfig(5));
  EXPECT_EQ(report.loaded.size(), 9u);
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_TRUE(contains(report.notes[0], "Half → Float (8 tensors)")) << report.notes[0];
  EXPECT_EQ(model->namedParameters()[0].second.scalar_type(), torch::kFloat);
  expectTorchOutputs(*model, 2e-2);
}

TEST(WeightsLoading, ACommonPrefixIsDetectedOrStrippedAsGiven) {
  auto model = tinyModel();
  WeightsLoadReport report = loadInto(*model, loadFixture("tiny_module.pt"), tinyConfig(5));
  EXPECT_EQ(report.prefix, "module.");
  EXPECT_TRUE(report.prefix_detected);
  EXPECT_EQ(report.loaded.size(), 9u);
  EXPECT_TRUE(contains(weightsLoadSummary(report), "prefix \"module.\" stripped (detected)"));
  expectTorchOutputs(*model, 1e-5);

  ModelConfig config = tinyConfig(5);
  config.weights_prefix = "module.";
  report = loadInto(*model, loadFixture("tiny_module.pt"), config);
  EXPECT_FALSE(report.prefix_detected);
  EXPECT_EQ(report.loaded.size(), 9u);

  config.weights_prefix = "backbone.";
  const std::string error = userErrorOf([&] { loadInto(*model, loadFixture("tiny_module.pt"), config); });
  EXPECT_TRUE(contains(error, "model.weights_prefix")) << error;
  EXPECT_TRUE(contains(error, "module.layers.0.weight")) << error;
}

TEST(WeightsLoading, AnotherArchitecturesFileIsRefusedEvenWhenSkipping) {
  for (const WeightsMismatch policy : {WeightsMismatch::Refuse, WeightsMismatch::Skip}) {
    auto model = tinyModel();
    const auto before = snapshot(*model);
    ModelConfig config = tinyConfig(5);
    config.weights_mismatch = policy;
    const std::string error =
        userErrorOf([&] { loadInto(*model, loadFixture("other_arch.safetensors"), config); });
    EXPECT_TRUE(contains(error, "0 of 9 tensors of the model match")) << error;
    EXPECT_TRUE(contains(error, "other_arch.safetensors: is this a tinynet file?")) << error;
    EXPECT_TRUE(contains(error, "fc1.weight")) << error;
    EXPECT_TRUE(contains(error, "layers.0.weight")) << error;
    for (const auto& [name, tensor] : snapshot(*model))
      EXPECT_TRUE(torch::equal(tensor, before.at(name))) << name;
  }
}

TEST(WeightsLoading, AChangedClassCountGetsANewHeadReported) {
  auto model = tinyModel(3);
  const auto before = snapshot(*model);
  const WeightsLoadReport report = loadInto(*model, loadFixture("tiny.pt"), tinyConfig(3));
  EXPECT_EQ(report.loaded.size(), 7u);
  EXPECT_EQ(report.new_head, (std::vector<std::string>{"layers.4.weight", "layers.4.bias"}));
  EXPECT_EQ(report.head_classes, 3);
  EXPECT_EQ(report.file_head_classes, 5);
  EXPECT_TRUE(report.mismatched.empty() && report.unexpected.empty());
  EXPECT_EQ(weightsLoadHeadLine(report),
            "new head: 3 classes (the file's has 5), initialized fresh: layers.4.weight, layers.4.bias");
  const auto after = snapshot(*model);
  EXPECT_TRUE(torch::equal(after.at("layers.4.weight"), before.at("layers.4.weight")));
  EXPECT_FALSE(torch::equal(after.at("layers.0.weight"), before.at("layers.0.weight")));
}

TEST(WeightsLoading, MisfitsAreRefusedByNameOrSkippedAndListed) {
  auto model = tinyModel(5, /*channels=*/2);  // conv weight [4, 2, 3, 3]; the file's [4, 1, 3, 3]
  const auto before = snapshot(*model);
  const std::string error =
      userErrorOf([&] { loadInto(*model, loadFixture("tiny.safetensors"), tinyConfig(5)); });
  EXPECT_TRUE(contains(error, "tiny.safetensors does not fit tinynet: 1 of another shape")) << error;
  EXPECT_TRUE(contains(error, "layers.0.weight: the model's [4, 2, 3, 3], the file's [4, 1, 3, 3]")) << error;
  for (const auto& [name, tensor] : snapshot(*model))
    EXPECT_TRUE(torch::equal(tensor, before.at(name))) << name;

  ModelConfig skip = tinyConfig(5);
  skip.weights_mismatch = WeightsMismatch::Skip;
  const WeightsLoadReport report = loadInto(*model, loadFixture("tiny.safetensors"), skip);
  EXPECT_EQ(report.loaded.size(), 8u);
  ASSERT_EQ(report.mismatched.size(), 1u);
  EXPECT_EQ(report.mismatched[0].name, "layers.0.weight");
  EXPECT_TRUE(contains(weightsLoadSummary(report), "skipped: 0 missing, 0 unexpected, 1 of another shape"));
  const auto after = snapshot(*model);
  EXPECT_TRUE(torch::equal(after.at("layers.0.weight"), before.at("layers.0.weight")));
  EXPECT_FALSE(torch::equal(after.at("layers.1.running_var"), before.at("layers.1.running_var")));
  const std::vector<std::string> lines = weightsLoadLines(report);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1],
            "  another shape (kept as initialized): layers.0.weight the model's [4, 2, 3, 3], the file's [4, "
            "1, 3, 3]");
  const nlohmann::json json = weightsLoadToJson(report);
  EXPECT_EQ(json["mismatched"][0]["file"], nlohmann::json({4, 1, 3, 3}));
  EXPECT_EQ(json["loaded"].size(), 8u);
}

TEST(WeightsLoading, BadFilesAreRefusedNamingTheKeyAndFile) {
  auto model = tinyModel();
  std::ifstream in(loadFixture("tiny.pt"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string truncated = scratchDir("truncated") + "/tiny.pt";
  std::ofstream(truncated, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  std::string error = userErrorOf([&] { readModelWeights(truncated, *model); });
  EXPECT_TRUE(contains(error, "model.weights: " + truncated)) << error;

  const std::string evil = std::string(WB_SOURCE_DIR) + "/tests/fixtures/weights/torch1_evil_os_system.pt";
  error = userErrorOf([&] { readModelWeights(evil, *model); });
  EXPECT_TRUE(contains(error, "model.weights: ")) << error;
  EXPECT_TRUE(contains(error, "system")) << error;

  error = userErrorOf([&] { readModelWeights("no/such/weights.safetensors", *model); });
  EXPECT_TRUE(contains(error, "model.weights: no/such/weights.safetensors does not exist")) << error;
  error = userErrorOf([&] { readModelWeights(scratchDir("empty-folder"), *model); });
  EXPECT_TRUE(contains(error, "not a run of ours with weights")) << error;
}

// A run folder gives its model.pt; one without gives its newest intact checkpoint; a checkpoint file itself.
TEST(WeightsLoading, OurRunFoldersAndCheckpointsLoad) {
  auto trained = tinyModel();
  loadInto(*trained, loadFixture("tiny.pt"), tinyConfig(5));
  const std::string finished = scratchDir("finished");
  trained->save(finished + "/model.pt");
  const std::string interrupted = scratchDir("interrupted");
  OptimizerConfig sgd;
  sgd.name = OptimizerName::Sgd;
  auto optimizer = makeOptimizer(sgd, trained->namedParameters());
  std::string payload;
  serializeTrainingState(*trained, *optimizer, payload);
  const std::string checkpoint =
      CheckpointStore(interrupted, 2, true).save(7, nlohmann::json::object(), payload);

  for (const std::string& weights : {finished, interrupted, checkpoint}) {
    SCOPED_TRACE(weights);
    auto model = tinyModel();
    const ModelWeightsSource source = readModelWeights(weights, *model);
    const WeightsLoadReport report = loadModelWeights(*model, source, tinyConfig(5), "tinynet");
    EXPECT_EQ(report.loaded.size(), 9u);
    EXPECT_EQ(report.format, weights == finished ? "torchscript" : "workbench-checkpoint");
    expectTorchOutputs(*model, 1e-5);
  }
}

}  // namespace
}  // namespace wb
