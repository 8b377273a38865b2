// The built-in architectures (model.preset, the ModelPreset words), written as layer lists so that they are
// checked, summarized, pruned and exported exactly like a list a user writes. The small presets are here;
// torchvision's architectures have files of their own (model/torchvision/torchvision_presets.h).

#include <numeric>
#include <optional>

#include "model/layer.h"
#include "model/model.h"
#include "model/name_suggestions.h"
#include "model/torchvision/torchvision_mobile_presets.h"
#include "model/torchvision/torchvision_presets.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

json conv(int64_t outChannels, int64_t kernel, int64_t stride, int64_t padding, bool bias) {
  return {{"type", "conv2d"}, {"out_channels", outChannels}, {"kernel_size", kernel},
          {"stride", stride}, {"padding", padding},          {"bias", bias}};
}

json layer(const std::string& type) {
  return {{"type", type}};
}

json linear(int64_t outFeatures) {
  return {{"type", "linear"}, {"out_features", outFeatures}};
}

json mlpPreset(int64_t numClasses) {
  return json::array({layer("flatten"),
                      linear(256),
                      layer("relu"),
                      {{"type", "dropout"}, {"p", 0.2}},
                      linear(128),
                      layer("relu"),
                      linear(numClasses)});
}

json cnnPreset(int64_t numClasses) {
  const json pool = {{"type", "maxpool2d"}, {"kernel_size", 2}};
  return json::array({conv(32, 5, 1, 2, true),
                      layer("relu"),
                      pool,
                      conv(64, 5, 1, 2, true),
                      layer("relu"),
                      pool,
                      layer("flatten"),
                      linear(1024),
                      layer("relu"),
                      {{"type", "dropout"}, {"p", 0.5}},
                      linear(numClasses)});
}

// A basic ResNet block: conv3x3-bn-relu-conv3x3-bn plus a shortcut, then relu after the sum. The convs carry
// no bias because the batch norm after each one would cancel it.
json basicBlock(int64_t inChannels, int64_t outChannels, int64_t stride) {
  json block = {
      {"type", "residual"},
      {"layers", json::array({conv(outChannels, 3, stride, 1, false), layer("batchnorm2d"), layer("relu"),
                              conv(outChannels, 3, 1, 1, false), layer("batchnorm2d")})}};
  if (stride != 1 || inChannels != outChannels) {
    block["shortcut"] = json::array({conv(outChannels, 1, stride, 0, false), layer("batchnorm2d")});
  }
  return block;
}

json resnetPreset(int64_t numClasses) {
  json layers = json::array({conv(32, 3, 1, 1, false), layer("batchnorm2d"), layer("relu")});
  int64_t channels = 32;
  for (const auto& [stageChannels, stride] :
       std::vector<std::pair<int64_t, int64_t>>{{32, 1}, {64, 2}, {128, 2}}) {
    layers.push_back(basicBlock(channels, stageChannels, stride));
    layers.push_back(layer("relu"));
    channels = stageChannels;
  }
  layers.push_back({{"type", "adaptive_avgpool2d"}, {"output_size", 1}});
  layers.push_back(layer("flatten"));
  layers.push_back(linear(numClasses));
  return layers;
}

// 7 for 28x28 (16 patches) and 4 for 32x32 (64 patches), the usual choices for MNIST and CIFAR; otherwise the
// largest divisor of both sides that still leaves at least 16 patches, which keeps attention cheap.
int64_t vitPatchSize(int64_t height, int64_t width) {
  if (height == 28 && width == 28) return 7;
  if (height == 32 && width == 32) return 4;
  const int64_t common = std::gcd(height, width);
  for (int64_t p = common; p > 1; --p) {
    if (common % p == 0 && (height / p) * (width / p) >= 16) return p;
  }
  return 1;
}

json vitPreset(const std::vector<int64_t>& inputShape, int64_t numClasses) {
  json layers = json::array(
      {{{"type", "patch_embed"}, {"patch_size", vitPatchSize(inputShape[1], inputShape[2])}, {"dim", 64}},
       {{"type", "position_embedding"}, {"cls_token", true}}});
  for (int i = 0; i < 4; ++i) layers.push_back({{"type", "encoder_block"}, {"heads", 4}, {"mlp_ratio", 2}});
  layers.push_back(layer("layernorm"));
  layers.push_back({{"type", "token_pool"}, {"mode", "cls"}});
  layers.push_back(linear(numClasses));
  return layers;
}

}  // namespace

json presetLayers(const std::string& preset, const std::vector<int64_t>& inputShape, int64_t numClasses) {
  const std::optional<ModelPreset> known = fromWord<ModelPreset>(preset);
  if (!known) {
    const std::vector<std::string> presets = allWords<ModelPreset>();
    throw UserError("model.preset: unknown preset \"" + preset + "\"." + suggestionText(preset, presets),
                    "choose one of " + joinedNames(presets) + ", or give model.layers");
  }
  if (*known == ModelPreset::Mlp) return mlpPreset(numClasses);
  if (inputShape.size() != 3) {
    throw UserError("model.preset: the " + preset +
                        " preset needs image data [channels, height, width], but the data's "
                        "samples are " +
                        shapeToString(inputShape) + ": use the mlp preset",
                    "set model.preset to \"mlp\", or give model.layers");
  }
  switch (*known) {
    case ModelPreset::Mlp:
      break;  // above: it is the one preset for any data
    case ModelPreset::Cnn:
      return cnnPreset(numClasses);
    case ModelPreset::Resnet:
      return resnetPreset(numClasses);
    case ModelPreset::Vit:
      return vitPreset(inputShape, numClasses);
    case ModelPreset::Resnet18:
      return torchvisionResnetLayers(18, inputShape, numClasses);
    case ModelPreset::Resnet50:
      return torchvisionResnetLayers(50, inputShape, numClasses);
    case ModelPreset::VitB16:
      return torchvisionVitB16Layers(inputShape, numClasses);
    case ModelPreset::MobileNetV3Large:
      return torchvisionMobileNetV3LargeLayers(inputShape, numClasses);
    case ModelPreset::EfficientNetB0:
      return torchvisionEfficientNetB0Layers(inputShape, numClasses);
    case ModelPreset::ConvNextTiny:
      return torchvisionConvNextTinyLayers(inputShape, numClasses);
  }
  return mlpPreset(numClasses);
}

json layerListOf(const ModelConfig& config, const std::vector<int64_t>& inputShape, int64_t numClasses) {
  return config.layers.is_array() ? config.layers : presetLayers(config.preset, inputShape, numClasses);
}

}  // namespace wb
