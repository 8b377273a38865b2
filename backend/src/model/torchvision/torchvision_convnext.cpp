// torchvision's ConvNeXt-Tiny (torchvision/models/convnext.py) as a named layer list. Module by module:
//   features.0      stem: conv 4x4/4 with bias "features.0.0", LayerNorm2d "features.0.1"
//   features.1,3,5,7  stages of CNBlocks "features.S.B", each a residual whose body is torchvision's "block"
//                   Sequential — depthwise 7x7 conv "block.0", (Permute), LayerNorm over channels "block.2"
//                   (layernorm2d: the permutes folded in), Linear "block.3" and "block.5" on each pixel's
//                   channels (channel_linear, nn.Linear's weights) with GELU between, (Permute) — then the
//                   block's own layer_scale (a layer_scale layer named "": its tensor sits on the block, as
//                   torchvision's parameter does) and stochastic depth before the sum
//   features.2,4,6  downsampling: LayerNorm2d "features.S.0", conv 2x2/2 with bias "features.S.1"
//   avgpool - classifier: LayerNorm2d "classifier.0", (Flatten), Linear "classifier.2"
// Layer norms eps 1e-6, as torchvision's.

#include <string>

#include "model/torchvision/torchvision_mobile_presets.h"
#include "workbench/errors.h"

namespace wb {
namespace torchvision_convnext {

using nlohmann::json;

constexpr double kNormEps = 1e-6;

json layerNorm2d(const std::string& name) {
  return {{"type", "layernorm2d"}, {"name", name}, {"eps", kNormEps}};
}

json conv(const std::string& name, int64_t out, int64_t kernel, int64_t stride, int64_t padding,
          int64_t groups) {
  return {{"type", "conv2d"}, {"name", name},       {"out_channels", out}, {"kernel_size", kernel},
          {"stride", stride}, {"padding", padding}, {"groups", groups},    {"bias", true}};
}

json block(const std::string& name, int64_t dim, double stochasticDepth) {
  json body = json::array({conv("block.0", dim, 7, 1, 3, dim),
                           layerNorm2d("block.2"),
                           {{"type", "channel_linear"}, {"name", "block.3"}, {"out_features", 4 * dim}},
                           {{"type", "gelu"}},
                           {{"type", "channel_linear"}, {"name", "block.5"}, {"out_features", dim}},
                           {{"type", "layer_scale"}, {"name", ""}, {"init", 1e-6}}});
  if (stochasticDepth > 0)
    body.push_back({{"type", "stochastic_depth"}, {"p", stochasticDepth}, {"mode", "row"}});
  return {{"type", "residual"}, {"name", name}, {"layers", body}};
}

}  // namespace torchvision_convnext

nlohmann::json torchvisionConvNextTinyLayers(const Shape& input, int64_t numClasses, double stochasticDepth) {
  using namespace torchvision_convnext;
  // The stem (/4) and three 2x2 downsamplings leave a 32x32 image at 1x1: smaller ones end in an empty map.
  if (input.size() == 3 && (input[1] < 32 || input[2] < 32)) {
    throw UserError(
        "model.preset: convnext_tiny needs images of at least 32x32 (its stem divides them by 4 "
        "and three downsamplings by 2 each), but the data's are " +
            shapeToString(input),
        "use images of 32x32 or more (for an image folder, data.images.resize and crop), or another preset");
  }
  const int64_t widths[] = {96, 192, 384, 768};
  const int blocks[] = {3, 3, 9, 3};
  int total = 0;
  for (int b : blocks) total += b;
  json layers = json::array({conv("features.0.0", widths[0], 4, 4, 0, 1), layerNorm2d("features.0.1")});
  int blockId = 0;
  int feature = 1;
  for (size_t stage = 0; stage < std::size(widths); ++stage) {
    for (int b = 0; b < blocks[stage]; ++b) {
      // torchvision's rate: growing linearly from 0 at the first block to stochasticDepth at the last
      const double p = stochasticDepth * blockId++ / (total - 1.0);
      layers.push_back(
          block("features." + std::to_string(feature) + "." + std::to_string(b), widths[stage], p));
    }
    ++feature;
    if (stage + 1 < std::size(widths)) {
      const std::string name = "features." + std::to_string(feature++);
      layers.push_back(layerNorm2d(name + ".0"));
      layers.push_back(conv(name + ".1", widths[stage + 1], 2, 2, 0, 1));
    }
  }
  layers.push_back({{"type", "adaptive_avgpool2d"}, {"name", "avgpool"}, {"output_size", 1}});
  layers.push_back(layerNorm2d("classifier.0"));
  layers.push_back({{"type", "flatten"}});
  layers.push_back({{"type", "linear"}, {"name", "classifier.2"}, {"out_features", numClasses}});
  return layers;
}

}  // namespace wb
