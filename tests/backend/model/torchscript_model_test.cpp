// A TorchScript model from Python trains and saves through the same Model interface as a layer list.

#include <gtest/gtest.h>

#include "model/model.h"
#include "python_models.h"
#include "support/test_helpers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

std::unique_ptr<Model> scriptedModel(const std::string& file, const std::vector<int64_t>& input = {1, 28, 28},
                                     int64_t classes = 10) {
  ModelConfig config;
  config.preset.clear();
  config.torchscript = file;
  return buildModel(config, input, classes);
}

TEST(TorchScriptModel, TrainsOneStep) {
  const test::PythonModels& python = test::pythonModels();
  const auto model = scriptedModel(python.path("tiny_mlp"));
  const ModelInfo info = model->info();
  EXPECT_EQ(info.parameters, python.parameterCounts.at("tiny_mlp"));
  EXPECT_EQ(info.output_shape, (std::vector<int64_t>{10}));
  EXPECT_EQ(info.flops_per_sample, 0);
  EXPECT_TRUE(test::contains(info.summary, "layers.1.weight")) << info.summary;

  torch::manual_seed(5);
  const torch::Tensor input = torch::randn({4, 1, 28, 28});
  std::vector<torch::Tensor> before;
  for (const torch::Tensor& p : model->parameters()) before.push_back(p.detach().clone());
  ASSERT_EQ(before.size(), 4u);

  model->train(true);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  const torch::Tensor logits = model->forward(input);
  EXPECT_EQ(logits.sizes(), (torch::IntArrayRef{4, 10}));
  optimizer.zero_grad();
  torch::nn::functional::cross_entropy(logits, torch::tensor({1, 2, 3, 4}, torch::kLong)).backward();
  optimizer.step();
  const std::vector<torch::Tensor> after = model->parameters();
  for (size_t i = 0; i < before.size(); ++i)
    EXPECT_FALSE(torch::equal(before[i], after[i])) << "parameter " << i;
}

TEST(TorchScriptModel, SaveAndLoadCopyWeightsByName) {
  const test::PythonModels& python = test::pythonModels();
  const std::string file = test::makeTempDir("torchscript_save") + "/trained.pt";
  const auto trained = scriptedModel(python.path("tiny_mlp"));
  {
    torch::NoGradGuard noGrad;
    for (torch::Tensor& p : trained->parameters()) p.add_(1.0);
  }
  trained->save(file);
  const auto fresh = scriptedModel(python.path("tiny_mlp"));
  fresh->load(file);
  const auto expected = trained->namedParameters();
  const auto actual = fresh->namedParameters();
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(expected[i].first, actual[i].first);
    EXPECT_TRUE(torch::equal(expected[i].second, actual[i].second)) << expected[i].first;
  }
  // a TorchScript file of another architecture does not fit
  const std::string message = test::userErrorOf([&] { fresh->load(python.path("mlp")); });
  EXPECT_TRUE(test::contains(
      message, "layers.1.weight has shape [256, 784], the experiment's model expects [16, 784]"))
      << message;
}

TEST(TorchScriptModel, ProblemsAreUserErrors) {
  const test::PythonModels& python = test::pythonModels();
  EXPECT_EQ(test::userErrorOf([] { scriptedModel("/nonexistent/model.pt"); }),
            "model.torchscript: /nonexistent/model.pt does not exist");
  EXPECT_TRUE(test::contains(test::userErrorOf([&] {
                               scriptedModel(python.path("tiny_mlp"), {1, 28, 28}, 5);
                             }),
                             "outputs [10] per sample, but the data has 5 classes"));
  EXPECT_TRUE(test::contains(test::userErrorOf([&] {
                               scriptedModel(python.path("tiny_mlp"), {3, 32, 32}, 10);
                             }),
                             "does not accept inputs of shape [1, 3, 32, 32]"));
  EXPECT_TRUE(test::contains(test::userErrorOf([&] { scriptedModel(python.dir + "/counts.txt"); }),
                             "not a TorchScript file"));

  ModelConfig both;
  both.torchscript = python.path("tiny_mlp");
  both.layers = nlohmann::json::array({{{"type", "flatten"}}});
  EXPECT_TRUE(test::contains(test::userErrorOf([&] {
                               buildModel(both, {1, 28, 28}, 10);
                             }),
                             "both model.layers and"));
}

}  // namespace
}  // namespace wb
