#pragma once
// timm's names for the architectures where they differ from torchvision's (issue 40). timm's ResNets already
// use torchvision's keys; its ViTs (vit_base_patch16_224, the weights the Hugging Face hub ships for
// vit_b_16) name the same tensors differently, with the same shapes and layouts (timm's fused qkv is
// nn.MultiheadAttention's in_proj: q, k, v stacked in that order).

#include <string>

namespace wb {

// torchvision's name for timm's `name` ("blocks.3.attn.qkv.weight" ->
// "encoder.layers.encoder_layer_3.self_attention.in_proj_weight"); "" for a name timm's ViT does not have.
std::string torchvisionNameOfTimm(const std::string& name);

}  // namespace wb
