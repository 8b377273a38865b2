#include "weights/timm_names.h"

#include <cctype>
#include <utility>

namespace wb {
namespace {

// A table: timm's names, torchvision's for them.
const std::pair<const char*, const char*> kTimmVitTensors[] = {
    {"cls_token", "class_token"},
    {"pos_embed", "encoder.pos_embedding"},
    {"patch_embed.proj.weight", "conv_proj.weight"},
    {"patch_embed.proj.bias", "conv_proj.bias"},
    {"norm.weight", "encoder.ln.weight"},
    {"norm.bias", "encoder.ln.bias"},
    {"head.weight", "heads.head.weight"},
    {"head.bias", "heads.head.bias"},
};

// Inside blocks.<i>.
const std::pair<const char*, const char*> kTimmVitBlockTensors[] = {
    {"norm1.weight", "ln_1.weight"},
    {"norm1.bias", "ln_1.bias"},
    {"attn.qkv.weight", "self_attention.in_proj_weight"},
    {"attn.qkv.bias", "self_attention.in_proj_bias"},
    {"attn.proj.weight", "self_attention.out_proj.weight"},
    {"attn.proj.bias", "self_attention.out_proj.bias"},
    {"norm2.weight", "ln_2.weight"},
    {"norm2.bias", "ln_2.bias"},
    {"mlp.fc1.weight", "mlp.0.weight"},
    {"mlp.fc1.bias", "mlp.0.bias"},
    {"mlp.fc2.weight", "mlp.3.weight"},
    {"mlp.fc2.bias", "mlp.3.bias"},
};

}  // namespace

std::string torchvisionNameOfTimm(const std::string& name) {
  for (const auto& [timm, torchvision] : kTimmVitTensors)
    if (name == timm) return torchvision;
  const std::string blocks = "blocks.";
  if (name.rfind(blocks, 0) != 0) return "";
  size_t end = blocks.size();
  while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
  if (end == blocks.size() || end >= name.size() || name[end] != '.') return "";
  const std::string index = name.substr(blocks.size(), end - blocks.size());
  const std::string rest = name.substr(end + 1);
  for (const auto& [timm, torchvision] : kTimmVitBlockTensors)
    if (rest == timm) return "encoder.layers.encoder_layer_" + index + "." + torchvision;
  return "";
}

}  // namespace wb
