// torchvision's MobileNetV3-Large and EfficientNet-B0 (torchvision/models/mobilenetv3.py, efficientnet.py)
// as named layer lists. Module by module:
//   features.0            Conv2dNormActivation: conv (3x3/2, no bias) "features.0.0", batch norm
//                         "features.0.1", activation
//   MobileNetV3 features.1..15, EfficientNet features.S.B
//                         inverted residual blocks, each a Sequential "block" of Conv2dNormActivations
//                         (expand 1x1 when it widens, depthwise kxk, project 1x1 without activation) with a
//                         SqueezeExcitation between depthwise and project: layers named "block.I.0" (conv),
//                         "block.I.1" (batch norm), "block.I" (squeeze-excitation, its fc1 and fc2 inside).
//                         A block that adds its input (stride 1, same channels) is a residual named after the
//                         block; one that does not is its layers, named with the block's path in front.
//   last features         Conv2dNormActivation 1x1 up to 960 / 1280
//   avgpool - flatten - classifier (linear / hardswish / dropout / linear; dropout / linear)

#include <algorithm>
#include <string>

#include "model/torchvision/torchvision_mobile_presets.h"

namespace wb {
namespace torchvision_mobile {

using nlohmann::json;

// torchvision's _make_divisible: channels rounded to a multiple of 8, never more than 10% down.
int64_t makeDivisible(double value, int64_t divisor = 8) {
  int64_t rounded = std::max(divisor, static_cast<int64_t>(value + divisor / 2.0) / divisor * divisor);
  if (static_cast<double>(rounded) < 0.9 * value) rounded += divisor;
  return rounded;
}

struct Norm {
  double eps;
  double momentum;
};

// Conv2dNormActivation: a bias-free conv (the batch norm after it would cancel a bias) with torchvision's
// padding (k - 1) / 2, its batch norm, and the activation unless `activation` is empty.
void convNormActivation(json& layers, const std::string& name, int64_t out, int64_t kernel, int64_t stride,
                        int64_t groups, const Norm& norm, const std::string& activation) {
  layers.push_back({{"type", "conv2d"},
                    {"name", name + ".0"},
                    {"out_channels", out},
                    {"kernel_size", kernel},
                    {"stride", stride},
                    {"padding", (kernel - 1) / 2},
                    {"groups", groups},
                    {"bias", false}});
  layers.push_back(
      {{"type", "batchnorm2d"}, {"name", name + ".1"}, {"eps", norm.eps}, {"momentum", norm.momentum}});
  if (!activation.empty()) layers.push_back({{"type", activation}});
}

// One inverted residual block's layers (its "block" Sequential).
struct InvertedResidual {
  int64_t in;
  int64_t kernel;
  int64_t expanded;
  int64_t out;
  int64_t squeeze;  // squeeze-excitation channels; 0 for none
  std::string activation;
  std::string squeezeActivation;  // the squeeze-excitation's (after fc1)
  std::string scaleActivation;    // and its scale's
  int64_t stride;
};

// The block as layers of `list`: a residual named `name` when it adds its input (with `stochasticDepth`
// before the sum, as EfficientNet's MBConv; MobileNetV3 has none), else its layers named `name`.block.I.
void invertedResidual(json& list, const std::string& name, const InvertedResidual& b, const Norm& norm,
                      double stochasticDepth) {
  const bool residual = b.stride == 1 && b.in == b.out;
  const std::string prefix = residual ? "block." : name + ".block.";
  json body = json::array();
  int index = 0;
  auto next = [&] { return prefix + std::to_string(index++); };
  if (b.expanded != b.in) convNormActivation(body, next(), b.expanded, 1, 1, 1, norm, b.activation);
  convNormActivation(body, next(), b.expanded, b.kernel, b.stride, b.expanded, norm, b.activation);
  if (b.squeeze > 0) {
    body.push_back({{"type", "squeeze_excitation"},
                    {"name", next()},
                    {"squeeze_channels", b.squeeze},
                    {"activation", b.squeezeActivation},
                    {"scale_activation", b.scaleActivation}});
  }
  convNormActivation(body, next(), b.out, 1, 1, 1, norm, "");
  if (!residual) {
    for (json& layer : body) list.push_back(std::move(layer));
    return;
  }
  if (stochasticDepth > 0)
    body.push_back({{"type", "stochastic_depth"}, {"p", stochasticDepth}, {"mode", "row"}});
  list.push_back({{"type", "residual"}, {"name", name}, {"layers", body}});
}

void pooledHead(json& layers) {
  layers.push_back({{"type", "adaptive_avgpool2d"}, {"name", "avgpool"}, {"output_size", 1}});
  layers.push_back({{"type", "flatten"}});
}

}  // namespace torchvision_mobile

nlohmann::json torchvisionMobileNetV3LargeLayers(const Shape& input, int64_t numClasses, double dropout) {
  using namespace torchvision_mobile;
  (void)input;  // every size works alike: the stem's channels come from the data, the pool ends at 1x1
  const Norm norm{0.001, 0.01};
  // torchvision's table: input, kernel, expanded, output, squeeze-excitation, hardswish, stride
  struct Row {
    int64_t in, kernel, expanded, out;
    bool se, hardswish;
    int64_t stride;
  };
  const Row rows[] = {{16, 3, 16, 16, false, false, 1},  {16, 3, 64, 24, false, false, 2},
                      {24, 3, 72, 24, false, false, 1},  {24, 5, 72, 40, true, false, 2},
                      {40, 5, 120, 40, true, false, 1},  {40, 5, 120, 40, true, false, 1},
                      {40, 3, 240, 80, false, true, 2},  {80, 3, 200, 80, false, true, 1},
                      {80, 3, 184, 80, false, true, 1},  {80, 3, 184, 80, false, true, 1},
                      {80, 3, 480, 112, true, true, 1},  {112, 3, 672, 112, true, true, 1},
                      {112, 5, 672, 160, true, true, 2}, {160, 5, 960, 160, true, true, 1},
                      {160, 5, 960, 160, true, true, 1}};
  json layers = json::array();
  convNormActivation(layers, "features.0", 16, 3, 2, 1, norm, "hardswish");
  int feature = 1;
  for (const Row& r : rows) {
    const InvertedResidual block{r.in,
                                 r.kernel,
                                 r.expanded,
                                 r.out,
                                 r.se ? makeDivisible(static_cast<double>(r.expanded / 4)) : 0,
                                 r.hardswish ? "hardswish" : "relu",
                                 "relu",
                                 "hardsigmoid",
                                 r.stride};
    invertedResidual(layers, "features." + std::to_string(feature++), block, norm, 0.0);
  }
  convNormActivation(layers, "features." + std::to_string(feature), 960, 1, 1, 1, norm, "hardswish");
  pooledHead(layers);
  layers.push_back({{"type", "linear"}, {"name", "classifier.0"}, {"out_features", 1280}});
  layers.push_back({{"type", "hardswish"}});
  layers.push_back({{"type", "dropout"}, {"p", dropout}});
  layers.push_back({{"type", "linear"}, {"name", "classifier.3"}, {"out_features", numClasses}});
  return layers;
}

nlohmann::json torchvisionEfficientNetB0Layers(const Shape& input, int64_t numClasses, double stochasticDepth,
                                               double dropout) {
  using namespace torchvision_mobile;
  (void)input;
  const Norm norm{1e-5, 0.1};  // b0 to b4 keep nn.BatchNorm2d's defaults
  // torchvision's table: expand ratio, kernel, stride, input, output, blocks
  struct Stage {
    int64_t expand, kernel, stride, in, out, blocks;
  };
  const Stage stages[] = {{1, 3, 1, 32, 16, 1},  {6, 3, 2, 16, 24, 2},  {6, 5, 2, 24, 40, 2},
                          {6, 3, 2, 40, 80, 3},  {6, 5, 1, 80, 112, 3}, {6, 5, 2, 112, 192, 4},
                          {6, 3, 1, 192, 320, 1}};
  int64_t total = 0;
  for (const Stage& s : stages) total += s.blocks;
  json layers = json::array();
  convNormActivation(layers, "features.0", 32, 3, 2, 1, norm, "silu");
  int64_t blockId = 0;
  for (size_t stage = 0; stage < std::size(stages); ++stage) {
    const Stage& s = stages[stage];
    for (int64_t b = 0; b < s.blocks; ++b) {
      const int64_t in = b == 0 ? s.in : s.out;
      const InvertedResidual block{in,
                                   s.kernel,
                                   makeDivisible(static_cast<double>(in * s.expand)),
                                   s.out,
                                   std::max<int64_t>(1, in / 4),
                                   "silu",
                                   "silu",
                                   "sigmoid",
                                   b == 0 ? s.stride : 1};
      const double p = stochasticDepth * static_cast<double>(blockId++) / static_cast<double>(total);
      invertedResidual(layers, "features." + std::to_string(stage + 1) + "." + std::to_string(b), block, norm,
                       p);
    }
  }
  convNormActivation(layers, "features." + std::to_string(std::size(stages) + 1), 1280, 1, 1, 1, norm,
                     "silu");
  pooledHead(layers);
  layers.push_back({{"type", "dropout"}, {"p", dropout}});
  layers.push_back({{"type", "linear"}, {"name", "classifier.1"}, {"out_features", numClasses}});
  return layers;
}

}  // namespace wb
