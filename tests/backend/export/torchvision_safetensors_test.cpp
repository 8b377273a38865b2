// The safetensors export of torchvision's ResNet-18 (the resnet18 preset) is a state dict PyTorch's own model
// takes: its tensors are written under torchvision's names (layer1.0.conv1.weight, fc.bias,
// bn1.running_mean), not the layer list's, each the artifact's tensor. The other models keep their names
// (safetensors_test.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "compress/model_artifact.h"
#include "export/exported_tensors.h"
#include "support/fashion_subset.h"

namespace wb {
namespace {

TEST(TorchvisionSafetensors, Resnet18IsWrittenUnderTorchvisionsNames) {
  const Shape shape = {1, 32, 32};
  const ModelArtifact a = test::trainedArtifact(presetLayers("resnet18", shape, 10), shape, 1, 5);
  const NamedTensors written = exportedTensors(a);
  std::map<std::string, torch::Tensor> by_name(written.begin(), written.end());
  ASSERT_EQ(by_name.size(), a.weights.size() + a.buffers.size());  // 62 parameters, 60 buffers
  for (const auto& [name, tensor] : by_name) {
    EXPECT_NE(name.rfind("layers.", 0), 0u) << name << " kept the layer list's name";
  }
  const std::map<std::string, std::string> same = {{"layers.0.weight", "conv1.weight"},
                                                   {"layers.1.running_mean", "bn1.running_mean"},
                                                   {"layers.4.layers.0.weight", "layer1.0.conv1.weight"}};
  NamedTensors ours = a.weights;
  ours.insert(ours.end(), a.buffers.begin(), a.buffers.end());
  for (const auto& [inside, outside] : same) {
    ASSERT_TRUE(by_name.count(outside)) << outside;
    const auto it = std::find_if(ours.begin(), ours.end(), [&](const auto& p) { return p.first == inside; });
    ASSERT_NE(it, ours.end()) << inside;
    EXPECT_TRUE(torch::equal(by_name[outside], it->second)) << inside << " -> " << outside;
  }
  EXPECT_EQ(by_name["fc.weight"].sizes(), torch::IntArrayRef({10, 512}));
  EXPECT_TRUE(
      torch::equal(by_name["fc.bias"], a.weights.back().second));  // the head's bias, the last parameter
}

}  // namespace
}  // namespace wb
