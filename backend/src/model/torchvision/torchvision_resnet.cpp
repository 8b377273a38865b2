// torchvision's ResNets (torchvision/models/resnet.py) as named layer lists. Module by module:
//   conv1 (7x7/2, 64, no bias) - bn1 - relu - maxpool (3x3/2, padding 1)
//   layer1..layer4: blocks named "layerN.i", each a residual whose body modules sit on the block (conv1,
//     bn1, conv2, bn2[, conv3, bn3]) and whose projection shortcut is "downsample.0" (1x1 conv, the block's
//     stride) and "downsample.1" (batch norm); torchvision's relu after the sum is an unnamed relu layer
//     after the residual (it has no tensors, so its place in the list changes no outside name)
//   avgpool (adaptive, 1x1) - flatten - fc
// Every conv is bias-free (the batch norm after it would cancel a bias); batch norms use eps 1e-5 and
// momentum 0.1, nn.BatchNorm2d's defaults, as torchvision's do.

#include <stdexcept>
#include <string>
#include <vector>

#include "model/torchvision/torchvision_presets.h"

namespace wb {
namespace {

using nlohmann::json;

json namedConv(const std::string& name, int64_t out, int64_t kernel, int64_t stride, int64_t padding) {
  return {{"type", "conv2d"}, {"name", name},       {"out_channels", out}, {"kernel_size", kernel},
          {"stride", stride}, {"padding", padding}, {"bias", false}};
}

json namedBatchNorm(const std::string& name) {
  return {{"type", "batchnorm2d"}, {"name", name}};
}

const json kRelu = {{"type", "relu"}};

struct ResnetShape {
  bool bottleneck;
  std::vector<int> blocks;  // per stage
};

ResnetShape resnetShape(int depth) {
  switch (depth) {
    case 18:
      return {false, {2, 2, 2, 2}};
    case 34:
      return {false, {3, 4, 6, 3}};
    case 50:
      return {true, {3, 4, 6, 3}};
    case 101:
      return {true, {3, 4, 23, 3}};
    case 152:
      return {true, {3, 8, 36, 3}};
    default:
      throw std::invalid_argument("torchvision has no resnet" + std::to_string(depth));
  }
}

// One block of a stage: torchvision's BasicBlock (3x3, 3x3) or Bottleneck (1x1, 3x3 carrying the stride,
// 1x1 to 4x the width). The shortcut projects when the stride or the channel count changes.
json resnetBlock(const std::string& name, bool bottleneck, int64_t inChannels, int64_t width,
                 int64_t stride) {
  json body = json::array();
  int64_t outChannels = width;
  if (bottleneck) {
    outChannels = width * 4;
    body = json::array({namedConv("conv1", width, 1, 1, 0), namedBatchNorm("bn1"), kRelu,
                        namedConv("conv2", width, 3, stride, 1), namedBatchNorm("bn2"), kRelu,
                        namedConv("conv3", outChannels, 1, 1, 0), namedBatchNorm("bn3")});
  } else {
    body = json::array({namedConv("conv1", width, 3, stride, 1), namedBatchNorm("bn1"), kRelu,
                        namedConv("conv2", width, 3, 1, 1), namedBatchNorm("bn2")});
  }
  json block = {{"type", "residual"}, {"name", name}, {"layers", body}};
  if (stride != 1 || inChannels != outChannels) {
    block["shortcut"] =
        json::array({namedConv("downsample.0", outChannels, 1, stride, 0), namedBatchNorm("downsample.1")});
  }
  return block;
}

}  // namespace

json torchvisionResnetLayers(int depth, const Shape& input, int64_t numClasses) {
  (void)input;  // every size works alike: the stem's channels come from the data, the pool ends at 1x1
  const ResnetShape shape = resnetShape(depth);
  json layers = json::array({namedConv("conv1", 64, 7, 2, 3),
                             namedBatchNorm("bn1"),
                             kRelu,
                             {{"type", "maxpool2d"}, {"kernel_size", 3}, {"stride", 2}, {"padding", 1}}});
  int64_t channels = 64;
  const int64_t widths[] = {64, 128, 256, 512};
  for (size_t stage = 0; stage < shape.blocks.size(); ++stage) {
    for (int b = 0; b < shape.blocks[stage]; ++b) {
      const int64_t stride = stage > 0 && b == 0 ? 2 : 1;
      const std::string name = "layer" + std::to_string(stage + 1) + "." + std::to_string(b);
      layers.push_back(resnetBlock(name, shape.bottleneck, channels, widths[stage], stride));
      layers.push_back(kRelu);
      channels = widths[stage] * (shape.bottleneck ? 4 : 1);
    }
  }
  layers.push_back({{"type", "adaptive_avgpool2d"}, {"name", "avgpool"}, {"output_size", 1}});
  layers.push_back({{"type", "flatten"}});
  layers.push_back({{"type", "linear"}, {"name", "fc"}, {"out_features", numClasses}});
  return layers;
}

}  // namespace wb
