// initializeAsTorchvision: torchvision 0.14's init loops, one function per architecture, over the tensors by
// their torchvision names. A module's kind comes from the rank of its ".weight" (4: Conv2d, 2: Linear, and
// ConvNeXt's channel_linear, 1: a batch, group or layer norm), as torchvision's isinstance tests pick them.

#include "model/torchvision/torchvision_init.h"

#include <cmath>
#include <map>
#include <string>

namespace wb {
namespace {

enum class TvModuleKind { Conv, Linear, Norm, Other };

// One parameter with the kind of module that holds it.
struct TvTensor {
  std::string name;  // torchvision's
  torch::Tensor tensor;
  TvModuleKind kind;
  bool isBias;
};

bool tvEndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string tvModulePrefix(const std::string& name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? "" : name.substr(0, dot);
}

TvModuleKind tvKindOfWeight(const torch::Tensor& weight) {
  switch (weight.dim()) {
    case 4:
      return TvModuleKind::Conv;
    case 2:
      return TvModuleKind::Linear;
    case 1:
      return TvModuleKind::Norm;
    default:
      return TvModuleKind::Other;
  }
}

std::vector<TvTensor> tvTensors(Model& model) {
  const std::map<std::string, std::string> outside = model.externalNames();
  std::vector<std::pair<std::string, torch::Tensor>> named;
  for (auto& [name, tensor] : model.namedParameters()) {
    const auto found = outside.find(name);
    named.emplace_back(found == outside.end() ? name : found->second, tensor);
  }
  std::map<std::string, TvModuleKind> kindOfModule;
  for (const auto& [name, tensor] : named)
    if (tvEndsWith(name, ".weight")) kindOfModule[tvModulePrefix(name)] = tvKindOfWeight(tensor);
  std::vector<TvTensor> result;
  for (const auto& [name, tensor] : named) {
    const auto kind = kindOfModule.find(tvModulePrefix(name));
    result.push_back({name, tensor, kind == kindOfModule.end() ? TvModuleKind::Other : kind->second,
                      tvEndsWith(name, ".bias")});
  }
  return result;
}

// nn.init.trunc_normal_(w, std=s) cuts at the absolute bounds -2 and 2: at the stds used here (0.02, and
// ViT's sqrt(1/768) = 0.036) they lie over 50 standard deviations out, so a plain normal draws the same law.
void tvTruncNormal(torch::Tensor& tensor, double std) {
  torch::nn::init::normal_(tensor, 0.0, std);
}

// The norms of every architecture: weight 1, bias 0 (torchvision's loops set it; LibTorch's default agrees).
void tvNorm(TvTensor& t) {
  if (t.isBias)
    torch::nn::init::zeros_(t.tensor);
  else
    torch::nn::init::ones_(t.tensor);
}

// torchvision/models/resnet.py: Conv2d kaiming_normal_(fan_out, relu); norms 1/0; fc keeps nn.Linear's
// default (which LibTorch's equals). zero_init_residual is off by default.
void tvInitResnet(std::vector<TvTensor>& tensors) {
  for (TvTensor& t : tensors) {
    if (t.kind == TvModuleKind::Conv && !t.isBias)
      torch::nn::init::kaiming_normal_(t.tensor, 0.0, torch::kFanOut, torch::kReLU);
    else if (t.kind == TvModuleKind::Norm)
      tvNorm(t);
  }
}

// mobilenetv3.py (linearWeight: normal 0.01) and efficientnet.py (uniform +-1/sqrt(out_features)): Conv2d
// kaiming_normal_(fan_out), bias 0; norms 1/0; Linear as given, bias 0.
template <typename LinearWeight>
void tvInitMobile(std::vector<TvTensor>& tensors, LinearWeight linearWeight) {
  for (TvTensor& t : tensors) {
    if (t.kind == TvModuleKind::Norm) {
      tvNorm(t);
    } else if ((t.kind == TvModuleKind::Conv || t.kind == TvModuleKind::Linear) && t.isBias) {
      torch::nn::init::zeros_(t.tensor);
    } else if (t.kind == TvModuleKind::Conv) {
      torch::nn::init::kaiming_normal_(t.tensor, 0.0, torch::kFanOut);
    } else if (t.kind == TvModuleKind::Linear) {
      linearWeight(t.tensor);
    }
  }
}

// convnext.py: Conv2d and Linear trunc_normal_(std 0.02), bias 0; norms keep 1/0; layer_scale 1e-6 (the
// preset's layer_scale layers start there).
void tvInitConvNext(std::vector<TvTensor>& tensors) {
  for (TvTensor& t : tensors) {
    if (t.kind != TvModuleKind::Conv && t.kind != TvModuleKind::Linear) continue;
    if (t.isBias)
      torch::nn::init::zeros_(t.tensor);
    else
      tvTruncNormal(t.tensor, 0.02);
  }
}

// vision_transformer.py: conv_proj trunc_normal_(std sqrt(1/fan_in)), bias 0; class_token 0; pos_embedding
// normal(std 0.02); the MLP blocks' Linear xavier_uniform_, bias normal(std 1e-6); nn.MultiheadAttention's
// _reset_parameters (in_proj xavier_uniform_, in_proj_bias and out_proj.bias 0, out_proj.weight nn.Linear's
// default); the head 0.
void tvInitVit(std::vector<TvTensor>& tensors) {
  for (TvTensor& t : tensors) {
    const std::string& name = t.name;
    if (name == "conv_proj.weight") {
      const double fanIn = static_cast<double>(t.tensor[0].numel());
      tvTruncNormal(t.tensor, std::sqrt(1.0 / fanIn));
    } else if (name == "class_token" || name == "conv_proj.bias" || name.rfind("heads.head.", 0) == 0 ||
               tvEndsWith(name, ".in_proj_bias") || tvEndsWith(name, ".out_proj.bias")) {
      torch::nn::init::zeros_(t.tensor);
    } else if (name == "encoder.pos_embedding") {
      torch::nn::init::normal_(t.tensor, 0.0, 0.02);
    } else if (tvEndsWith(name, ".in_proj_weight")) {
      torch::nn::init::xavier_uniform_(t.tensor);
    } else if (name.find(".mlp.") != std::string::npos && t.kind == TvModuleKind::Linear) {
      if (t.isBias)
        torch::nn::init::normal_(t.tensor, 0.0, 1e-6);
      else
        torch::nn::init::xavier_uniform_(t.tensor);
    } else if (t.kind == TvModuleKind::Norm) {
      tvNorm(t);
    }
  }
}

}  // namespace

void initializeAsTorchvision(ModelPreset preset, Model& model) {
  torch::NoGradGuard noGrad;
  std::vector<TvTensor> tensors = tvTensors(model);
  switch (preset) {
    case ModelPreset::Resnet18:
    case ModelPreset::Resnet50:
      tvInitResnet(tensors);
      return;
    case ModelPreset::VitB16:
      tvInitVit(tensors);
      return;
    case ModelPreset::MobileNetV3Large:
      tvInitMobile(tensors, [](torch::Tensor& w) { torch::nn::init::normal_(w, 0.0, 0.01); });
      return;
    case ModelPreset::EfficientNetB0:
      tvInitMobile(tensors, [](torch::Tensor& w) {
        const double range = 1.0 / std::sqrt(static_cast<double>(w.size(0)));
        torch::nn::init::uniform_(w, -range, range);
      });
      return;
    case ModelPreset::ConvNextTiny:
      tvInitConvNext(tensors);
      return;
    case ModelPreset::Mlp:
    case ModelPreset::Cnn:
    case ModelPreset::Resnet:
    case ModelPreset::Vit:
      return;
  }
}

}  // namespace wb
