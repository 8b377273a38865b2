// The head a fine-tune replaces: the module owning the model's last parameter.

#include "model/model_head.h"

#include <gtest/gtest.h>

#include "model/model.h"
#include "support/test_helpers.h"

namespace wb {
namespace {

std::vector<std::string> presetHead(const std::string& preset) {
  ModelConfig config;
  config.preset = preset;
  auto model = buildModel(config, test::kFashionImage, 10);
  return headParameterNames(*model);
}

TEST(ModelHead, IsTheLayerOwningTheLastParameter) {
  // mlp: flatten, linear, relu, dropout, linear, relu, linear — the head is layers[6].
  EXPECT_EQ(presetHead("mlp"), (std::vector<std::string>{"layers.6.weight", "layers.6.bias"}));
  // The ResNet's last residual block has parameters too; the head is still only the final linear layer.
  EXPECT_EQ(presetHead("resnet").size(), 2u);
  EXPECT_EQ(presetHead("resnet").front().rfind("layers.", 0), 0u);
  EXPECT_EQ(presetHead("resnet").back().substr(presetHead("resnet").back().size() - 5), ".bias");
}

TEST(ModelHead, OwningModuleOfANameIsEverythingBeforeItsLastDot) {
  EXPECT_EQ(owningModuleName("heads.head.weight"), "heads.head");
  EXPECT_EQ(owningModuleName("classifier.3.bias"), "classifier.3");
  EXPECT_EQ(owningModuleName("class_token"), "");
}

}  // namespace
}  // namespace wb
