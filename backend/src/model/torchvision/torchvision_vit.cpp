// torchvision's vit_b_16 (torchvision/models/vision_transformer.py) as a named layer list. Its modules and
// ours:
//   conv_proj (16x16/16 conv, 768)          patch_embed, its "proj" tensors renamed to sit on conv_proj
//   class_token, encoder.pos_embedding      position_embedding with a class token, named "" (on the model)
//   encoder.layers.encoder_layer_<i>        encoder_block: ln_1, self_attention (nn.MultiheadAttention's
//                                           in_proj_weight/bias, out_proj), ln_2, mlp.0 and mlp.3 are our
//                                           norm1, attn, norm2, fc1, fc2
//   encoder.ln                              layernorm
//   (x[:, 0])                               token_pool "cls"
//   heads.head                              linear
// Every layer norm has eps 1e-6 and dropout is 0, as in torchvision's defaults.

#include <string>

#include "model/torchvision/torchvision_presets.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

constexpr int64_t kImageSize = 224;
constexpr int64_t kPatchSize = 16;
constexpr int64_t kDim = 768;
constexpr int64_t kBlocks = 12;
constexpr int64_t kHeads = 12;
constexpr double kNormEps = 1e-6;

}  // namespace

json torchvisionVitB16Layers(const Shape& input, int64_t numClasses) {
  if (input.size() != 3 || input[1] != kImageSize || input[2] != kImageSize) {
    throw UserError(
        "model.preset: vit_b_16 takes 224x224 images (its position embedding has a row for each "
        "of the 196 patches and the class token, as torchvision's weights do), but the data's "
        "samples are " +
            shapeToString(input),
        "resize the images to 224x224 (data.images.resize 256 and data.images.crop 224 for an "
        "image folder), or use the vit preset, which fits any size");
  }
  json layers = json::array(
      {{{"type", "patch_embed"},
        {"name", "conv_proj"},
        {"patch_size", kPatchSize},
        {"dim", kDim},
        {"param_names", {{"proj", ""}}}},
       {{"type", "position_embedding"},
        {"name", ""},
        {"cls_token", true},
        {"param_names", {{"cls_token", "class_token"}, {"pos_embed", "encoder.pos_embedding"}}}}});
  const json blockNames = {
      {"norm1", "ln_1"}, {"attn", "self_attention"}, {"norm2", "ln_2"}, {"fc1", "mlp.0"}, {"fc2", "mlp.3"}};
  for (int64_t i = 0; i < kBlocks; ++i) {
    layers.push_back({{"type", "encoder_block"},
                      {"name", "encoder.layers.encoder_layer_" + std::to_string(i)},
                      {"heads", kHeads},
                      {"mlp_ratio", 4},
                      {"eps", kNormEps},
                      {"param_names", blockNames}});
  }
  layers.push_back({{"type", "layernorm"}, {"name", "encoder.ln"}, {"eps", kNormEps}});
  layers.push_back({{"type", "token_pool"}, {"mode", "cls"}});
  layers.push_back({{"type", "linear"}, {"name", "heads.head"}, {"out_features", numClasses}});
  return layers;
}

}  // namespace wb
