#include "export/onnx_emitters.h"

#include <cmath>

#include "model/layers/conv_layers.h"
#include "model/layers/dense_layers.h"
#include "model/layers/mobile_conv_layers.h"
#include "model/layers/residual_layer.h"
#include "model/layers/transformer_layers.h"
#include "workbench/errors.h"

namespace wb::onnx_export {
namespace {

using nlohmann::json;

// Formats that take every layer the engine has, for refusals.
const char* const kOtherFormats = "TorchScript and safetensors export take it";

std::vector<int64_t> pads2(int64_t h, int64_t w) {
  return {h, w, h, w};
}  // ONNX: begins, then ends

// Activations
// -------------------------------------------------------------------------------------------------

OnnxEmitter unary(const std::string& op) {
  return [op](OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
    return ctx.graph().add(op, {x}, l.name + "/" + op);
  };
}

// Exact GELU, as torch::gelu computes it: 0.5 * x * (1 + erf(x / sqrt(2))). ONNX has no Gelu before opset 20.
std::string emitGelu(OnnxEmitContext& ctx, const std::string& base, const std::string& x) {
  OnnxGraph& g = ctx.graph();
  const std::string scaled =
      g.add("Mul", {x, g.constFloat(base + ".rsqrt2", static_cast<float>(M_SQRT1_2))}, base + "/Mul");
  const std::string erf = g.add("Erf", {scaled}, base + "/Erf");
  const std::string plus1 = g.add("Add", {erf, g.constFloat(base + ".one", 1.0F)}, base + "/Add");
  const std::string times_x = g.add("Mul", {x, plus1}, base + "/Mul");
  return g.add("Mul", {times_x, g.constFloat(base + ".half", 0.5F)}, base + "/Mul");
}

// torch's hardsigmoid is relu6(x + 3) / 6; ONNX's HardSigmoid is max(0, min(1, alpha * x + beta)), its
// default alpha 0.2, so both are given.
std::string emitHardSigmoid(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  return ctx.graph().add("HardSigmoid", {x}, l.name + "/HardSigmoid",
                         {attrFloat("alpha", 1.0F / 6.0F), attrFloat("beta", 0.5F)});
}

// SiLU = x * sigmoid(x); ONNX has no op of its own for it.
std::string emitSilu(OnnxEmitContext& ctx, const std::string& base, const std::string& x) {
  return ctx.graph().add("Mul", {x, ctx.graph().add("Sigmoid", {x}, base + "/Sigmoid")}, base + "/Mul");
}

// Images
// ------------------------------------------------------------------------------------------------------

std::string emitConv(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& c = static_cast<const Conv2dLayer&>(l.layer);
  std::string weight;
  std::string bias;
  if (l.kernel() == "int8") {
    weight = ctx.dequantizedWeight(l.name);
    if (ctx.quantizedTensor(l.name + ".bias", false).defined()) {
      bias = ctx.graph().addInitializer(l.name + ".bias", ctx.quantizedTensor(l.name + ".bias"));
    }
  } else {
    weight = ctx.floatTensor(l.name + ".weight");
    if (c.bias()) bias = ctx.floatTensor(l.name + ".bias");
  }
  std::vector<std::string> inputs = {x, weight};
  if (!bias.empty()) inputs.push_back(bias);
  return ctx.graph().add("Conv", inputs, l.name + "/Conv",
                         {attrInts("kernel_shape", {c.kernel().h, c.kernel().w}),
                          attrInts("strides", {c.stride().h, c.stride().w}),
                          attrInts("pads", pads2(c.padding().h, c.padding().w)),
                          attrInts("dilations", {1, 1}), attrInt("group", c.groups())});
}

// Eval-mode batch norm (running statistics), for batchnorm2d and batchnorm1d alike: ONNX's
// BatchNormalization takes [N, C, ...] and [N, C].
std::string emitBatchNorm(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto* bn2d = dynamic_cast<const BatchNorm2dLayer*>(&l.layer);
  const double eps = bn2d != nullptr ? bn2d->eps() : BatchNorm2dLayer::kDefaultEps;
  return ctx.graph().add(
      "BatchNormalization",
      {x, ctx.floatTensor(l.name + ".weight"), ctx.floatTensor(l.name + ".bias"),
       ctx.floatTensor(l.name + ".running_mean"), ctx.floatTensor(l.name + ".running_var")},
      l.name + "/BatchNormalization", {attrFloat("epsilon", static_cast<float>(eps))});
}

std::string emitPool(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& p = static_cast<const Pool2dLayer&>(l.layer);
  std::vector<OnnxAttr> attrs = {attrInts("kernel_shape", {p.kernel().h, p.kernel().w}),
                                 attrInts("strides", {p.stride().h, p.stride().w}),
                                 attrInts("pads", pads2(p.padding().h, p.padding().w))};
  if (p.kind() == Pool2dLayer::Kind::Max) return ctx.graph().add("MaxPool", {x}, l.name + "/MaxPool", attrs);
  // torch's AvgPool2d counts padded zeros in the divisor by default (count_include_pad=True).
  attrs.push_back(attrInt("count_include_pad", 1));
  return ctx.graph().add("AveragePool", {x}, l.name + "/AveragePool", attrs);
}

// Adaptive average pooling has no ONNX op. To 1x1 it is GlobalAveragePool; when the output divides the input
// every window has the same size and stride, which AveragePool expresses exactly. Other sizes have windows of
// varying size and are refused.
std::string emitAdaptiveAvgPool(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& p = static_cast<const AdaptiveAvgPool2dLayer&>(l.layer);
  const int64_t h = l.input[1];
  const int64_t w = l.input[2];
  const int64_t oh = p.outputSize().h;
  const int64_t ow = p.outputSize().w;
  if (oh == 1 && ow == 1) return ctx.graph().add("GlobalAveragePool", {x}, l.name + "/GlobalAveragePool");
  if (h % oh != 0 || w % ow != 0) {
    throw UserError(l.name + " (adaptive_avgpool2d): output_size " + std::to_string(oh) + "x" +
                        std::to_string(ow) + " does not divide its " + std::to_string(h) + "x" +
                        std::to_string(w) +
                        " input, so its windows differ in size, which no ONNX pooling op "
                        "expresses; ONNX export cannot write it",
                    std::string("Use an output_size that divides the input (or 1), or export as ") +
                        "TorchScript or safetensors, which take it.");
  }
  return ctx.graph().add("AveragePool", {x}, l.name + "/AveragePool",
                         {attrInts("kernel_shape", {h / oh, w / ow}), attrInts("strides", {h / oh, w / ow})});
}

// Flat and token layers
// ------------------------------------------------------------------------------------------------

std::string emitFlatten(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  return ctx.graph().add("Flatten", {x}, l.name + "/Flatten", {attrInt("axis", 1)});
}

// Eval mode: dropout and identity pass the value on; no node needed.
std::string emitNothing(OnnxEmitContext&, const EmitLayer&, const std::string& x) {
  return x;
}

// Over the last axis, with the layer's eps (the encoder block's norms have LibTorch's default).
std::string emitLayerNorm(OnnxEmitContext& ctx, const std::string& base, const std::string& x,
                          double eps = LayerNormLayer::kDefaultEps) {
  // LayerNormalization is opset 17, which the writer pins.
  return ctx.graph().add(
      "LayerNormalization", {x, ctx.floatTensor(base + ".weight"), ctx.floatTensor(base + ".bias")},
      base + "/LayerNormalization", {attrInt("axis", -1), attrFloat("epsilon", static_cast<float>(eps))});
}

// x @ W^T + b for a float weight [out, in]. Flat [batch, in] inputs take Gemm; tokens [batch, N, in] take
// MatMul with the transposed weight (a Transpose of the initializer, so the file keeps the state-dict tensor
// as it is and ONNX Runtime folds the transpose once at load time) and an Add.
std::string floatLinear(OnnxEmitContext& ctx, const std::string& base, const std::string& x,
                        size_t input_rank, const std::string& weight, const std::string& bias) {
  OnnxGraph& g = ctx.graph();
  if (input_rank == 1) {
    std::vector<std::string> inputs = {x, weight};
    if (!bias.empty()) inputs.push_back(bias);
    return g.add("Gemm", inputs, base + "/Gemm", {attrInt("transB", 1)});
  }
  const std::string wt = g.add("Transpose", {weight}, base + "/Transpose", {attrInts("perm", {1, 0})});
  const std::string y = g.add("MatMul", {x, wt}, base + "/MatMul");
  return bias.empty() ? y : g.add("Add", {y, bias}, base + "/Add");
}

// Dynamic int8, as quantized::linear_dynamic computes it: the input quantized to uint8 with a scale and zero
// point chosen from its own range, an integer matmul with the int8 weight, the int32 result rescaled by
// input scale x weight scale (per output channel), then the float bias.
std::string dynamicInt8Linear(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  OnnxGraph& g = ctx.graph();
  const std::string base = l.name;
  const std::string weight = g.addInitializer(base + ".weight", ctx.quantizedTensor(base + ".weight"));
  const std::string weight_t = g.add("Transpose", {weight}, base + "/Transpose", {attrInts("perm", {1, 0})});
  const std::vector<std::string> q =
      g.addMulti("DynamicQuantizeLinear", {x}, base + "/DynamicQuantizeLinear", 3);
  // The weight's zero points are all 0 (symmetric), MatMulInteger's default.
  const std::string acc = g.add("MatMulInteger", {q[0], weight_t, q[2]}, base + "/MatMulInteger");
  const std::string acc_f =
      g.add("Cast", {acc}, base + "/Cast", {attrInt("to", static_cast<int64_t>(OnnxDataType::Float))});
  const std::string w_scale = g.addInitializer(
      base + ".weight.scale", ctx.quantizedTensor(base + ".weight.scale").to(torch::kFloat32));
  const std::string scale = g.add("Mul", {q[1], w_scale}, base + "/Mul");
  std::string y = g.add("Mul", {acc_f, scale}, base + "/Mul");
  const torch::Tensor bias = ctx.quantizedTensor(base + ".bias", false);
  if (bias.defined())
    y = g.add("Add", {y, g.addInitializer(base + ".bias", bias.to(torch::kFloat32))}, base + "/Add");
  return y;
}

std::string emitLinear(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& lin = static_cast<const LinearLayer&>(l.layer);
  const std::string kernel = l.kernel();
  if (kernel == "int8_dynamic") return dynamicInt8Linear(ctx, l, x);
  if (kernel == "int8") {
    const torch::Tensor bias = ctx.quantizedTensor(l.name + ".bias", false);
    const std::string weight = ctx.dequantizedWeight(l.name);
    return floatLinear(
        ctx, l.name, x, l.input.size(), weight,
        bias.defined() ? ctx.graph().addInitializer(l.name + ".bias", bias.to(torch::kFloat32)) : "");
  }
  return floatLinear(ctx, l.name, x, l.input.size(), ctx.floatTensor(l.name + ".weight"),
                     lin.bias() ? ctx.floatTensor(l.name + ".bias") : "");
}

// residual: y = layers(x) + shortcut(x). In a static int8 plan both branches end on their own grids and
// quantized::add(_relu) adds them into the block's output grid; dynamic plans add in float.
std::string emitResidual(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& r = static_cast<const ResidualLayer&>(l.layer);
  OnnxGraph& g = ctx.graph();
  const json none;
  const ActivationGrid entry = ctx.grid();
  std::string body =
      ctx.emitList(r.body(), l.name + ".layers", l.input, x, l.plan.is_null() ? none : l.plan.at("body"));
  const ActivationGrid body_grid = ctx.grid();
  ctx.grid() = entry;
  std::string shortcut = r.shortcut().empty() ? x
                                              : ctx.emitList(r.shortcut(), l.name + ".shortcut", l.input, x,
                                                             l.plan.is_null() ? none : l.plan.at("shortcut"));
  const ActivationGrid shortcut_grid = ctx.grid();
  if (ctx.staticInt8()) {
    body = ctx.onGrid(body, body_grid, l.name + ".layers");
    shortcut = ctx.onGrid(shortcut, shortcut_grid, l.name + ".shortcut");
  }
  std::string y = g.add("Add", {body, shortcut}, l.name + "/Add");
  if (!l.plan.is_null() && l.plan.value("relu", false)) y = g.add("Relu", {y}, l.name + "/Relu");
  if (ctx.staticInt8()) {
    const json& out = l.plan.at("output");
    y = ctx.quantizeDequantize(y, out.at("scale").get<double>(), out.at("zero_point").get<int64_t>(), l.name);
    ctx.grid() = {true, out.at("scale").get<double>(), out.at("zero_point").get<int64_t>()};
  }
  return y;
}

// Mobile and modern CNN pieces
// ------------------------------------------------------------------------------------

// x * scale(fc2(act(fc1(GlobalAveragePool(x))))), fc1 and fc2 1x1 convs with bias.
std::string emitSqueezeExcitation(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& se = static_cast<const SqueezeExcitationLayer&>(l.layer);
  OnnxGraph& g = ctx.graph();
  const std::string& n = l.name;
  auto conv = [&](const std::string& fc, const std::string& in) {
    return g.add("Conv",
                 {in, ctx.floatTensor(n + "." + fc + ".weight"), ctx.floatTensor(n + "." + fc + ".bias")},
                 n + "." + fc + "/Conv", {attrInts("kernel_shape", {1, 1})});
  };
  std::string s = conv("fc1", g.add("GlobalAveragePool", {x}, n + "/GlobalAveragePool"));
  s = se.activation() == SqueezeActivation::Relu ? g.add("Relu", {s}, n + "/Relu")
                                                 : emitSilu(ctx, n + ".silu", s);
  s = conv("fc2", s);
  s = se.scaleActivation() == ScaleActivation::Sigmoid
          ? g.add("Sigmoid", {s}, n + "/Sigmoid")
          : g.add("HardSigmoid", {s}, n + "/HardSigmoid",
                  {attrFloat("alpha", 1.0F / 6.0F), attrFloat("beta", 0.5F)});
  return g.add("Mul", {s, x}, n + "/Mul");
}

std::string toChannelsLast(OnnxGraph& g, const std::string& base, const std::string& x) {
  return g.add("Transpose", {x}, base + "/Transpose_last", {attrInts("perm", {0, 2, 3, 1})});
}

std::string toChannelsFirst(OnnxGraph& g, const std::string& base, const std::string& x) {
  return g.add("Transpose", {x}, base + "/Transpose_first", {attrInts("perm", {0, 3, 1, 2})});
}

std::string emitLayerNorm2d(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const double eps = static_cast<const LayerNorm2dLayer&>(l.layer).eps();
  OnnxGraph& g = ctx.graph();
  return toChannelsFirst(g, l.name, emitLayerNorm(ctx, l.name, toChannelsLast(g, l.name, x), eps));
}

std::string emitChannelLinear(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& c = static_cast<const ChannelLinearLayer&>(l.layer);
  OnnxGraph& g = ctx.graph();
  const std::string y =
      floatLinear(ctx, l.name, toChannelsLast(g, l.name, x), 3, ctx.floatTensor(l.name + ".weight"),
                  c.bias() ? ctx.floatTensor(l.name + ".bias") : "");
  return toChannelsFirst(g, l.name, y);
}

std::string emitLayerScale(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  return ctx.graph().add("Mul", {x, ctx.floatTensor(l.name + ".layer_scale")}, l.name + "/Mul");
}

// Vision transformer
// -----------------------------------------------------------------------------------------------

// [B, C, H, W] -> conv (kernel = stride = patch) [B, D, h, w] -> [B, D, h*w] -> [B, N, D]
std::string emitPatchEmbed(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& p = static_cast<const PatchEmbedLayer&>(l.layer);
  OnnxGraph& g = ctx.graph();
  const int64_t k = p.patchSize();
  const std::string conv =
      g.add("Conv", {x, ctx.floatTensor(l.name + ".proj.weight"), ctx.floatTensor(l.name + ".proj.bias")},
            l.name + "/Conv", {attrInts("kernel_shape", {k, k}), attrInts("strides", {k, k})});
  // Reshape's 0 copies the batch dimension, which keeps it dynamic.
  const std::string flat =
      g.add("Reshape", {conv, g.constInts(l.name + ".shape", {0, p.dim(), -1})}, l.name + "/Reshape");
  return g.add("Transpose", {flat}, l.name + "/Transpose", {attrInts("perm", {0, 2, 1})});
}

// [B, N, D] -> concat(class token expanded to [B, 1, D], x) + positions [1, N+1, D]
std::string emitPositionEmbedding(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& p = static_cast<const PositionEmbeddingLayer&>(l.layer);
  OnnxGraph& g = ctx.graph();
  std::string tokens = x;
  if (p.clsToken()) {
    // The batch size is known only at run time: Shape (opset 15's start/end) gives [B].
    const std::string batch =
        g.add("Shape", {x}, l.name + "/Shape", {attrInt("start", 0), attrInt("end", 1)});
    const std::string shape = g.add("Concat", {batch, g.constInts(l.name + ".cls_shape", {1, l.input[1]})},
                                    l.name + "/Concat", {attrInt("axis", 0)});
    const std::string cls =
        g.add("Expand", {ctx.floatTensor(l.name + ".cls_token"), shape}, l.name + "/Expand");
    tokens = g.add("Concat", {cls, x}, l.name + "/Concat", {attrInt("axis", 1)});
  }
  return g.add("Add", {tokens, ctx.floatTensor(l.name + ".pos_embed")}, l.name + "/Add");
}

// Pre-norm encoder block: x + MHA(LN1(x)), then x + fc2(gelu(fc1(LN2(x)))). Attention as
// torch::nn::MultiheadAttention computes it: q, k, v from one in-projection, q scaled by 1/sqrt(head_dim),
// heads split from D as [heads, head_dim], softmax over keys, out-projection. Eval mode: no dropout.
std::string emitEncoderBlock(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& b = static_cast<const EncoderBlockLayer&>(l.layer);
  OnnxGraph& g = ctx.graph();
  const std::string& n = l.name;
  const int64_t d = l.input[1];
  const int64_t heads = b.heads();
  const int64_t head_dim = d / heads;

  const std::string normed = emitLayerNorm(ctx, n + ".norm1", x, b.eps());
  const std::string qkv =
      floatLinear(ctx, n + ".attn.in_proj", normed, 2, ctx.floatTensor(n + ".attn.in_proj_weight"),
                  ctx.floatTensor(n + ".attn.in_proj_bias"));
  // Without a `split` input Split cuts the last axis into three equal parts: q, k, v.
  const std::vector<std::string> parts =
      g.addMulti("Split", {qkv}, n + ".attn/Split", 3, {attrInt("axis", -1)});
  const std::string heads_shape = g.constInts(n + ".attn.heads_shape", {0, 0, heads, head_dim});
  auto split_heads = [&](const std::string& v, const std::string& what, std::vector<int64_t> perm) {
    const std::string r = g.add("Reshape", {v, heads_shape}, n + ".attn/Reshape_" + what);
    return g.add("Transpose", {r}, n + ".attn/Transpose_" + what, {attrInts("perm", std::move(perm))});
  };
  const std::string q_scaled = g.add(
      "Mul", {parts[0], g.constFloat(n + ".attn.scaling", static_cast<float>(1.0 / std::sqrt(head_dim)))},
      n + ".attn/Mul");
  const std::string q = split_heads(q_scaled, "q", {0, 2, 1, 3});  // [B, H, N, hd]
  const std::string k = split_heads(parts[1], "k", {0, 2, 3, 1});  // [B, H, hd, N]
  const std::string v = split_heads(parts[2], "v", {0, 2, 1, 3});  // [B, H, N, hd]
  const std::string scores = g.add("MatMul", {q, k}, n + ".attn/MatMul_scores");
  const std::string weights = g.add("Softmax", {scores}, n + ".attn/Softmax", {attrInt("axis", -1)});
  const std::string context = g.add("MatMul", {weights, v}, n + ".attn/MatMul_context");
  const std::string merged =
      g.add("Reshape",
            {g.add("Transpose", {context}, n + ".attn/Transpose_context", {attrInts("perm", {0, 2, 1, 3})}),
             g.constInts(n + ".attn.merge_shape", {0, 0, d})},
            n + ".attn/Reshape_context");
  const std::string attended =
      floatLinear(ctx, n + ".attn.out_proj", merged, 2, ctx.floatTensor(n + ".attn.out_proj.weight"),
                  ctx.floatTensor(n + ".attn.out_proj.bias"));
  const std::string x1 = g.add("Add", {x, attended}, n + "/Add");

  const std::string normed2 = emitLayerNorm(ctx, n + ".norm2", x1, b.eps());
  const std::string hidden = floatLinear(ctx, n + ".fc1", normed2, 2, ctx.floatTensor(n + ".fc1.weight"),
                                         ctx.floatTensor(n + ".fc1.bias"));
  const std::string activated = emitGelu(ctx, n + ".gelu", hidden);
  const std::string mlp = floatLinear(ctx, n + ".fc2", activated, 2, ctx.floatTensor(n + ".fc2.weight"),
                                      ctx.floatTensor(n + ".fc2.bias"));
  return g.add("Add", {x1, mlp}, n + "/Add");
}

// [B, N, D] -> [B, D]: the class token (Gather of token 0) or the mean over tokens.
std::string emitTokenPool(OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
  const auto& p = static_cast<const TokenPoolLayer&>(l.layer);
  OnnxGraph& g = ctx.graph();
  if (p.mode() == "cls") {
    const std::string first = g.addInitializer(l.name + ".index", torch::scalar_tensor(0, torch::kInt64));
    return g.add("Gather", {x, first}, l.name + "/Gather", {attrInt("axis", 1)});
  }
  // ReduceMean takes its axes as an attribute up to opset 17.
  return g.add("ReduceMean", {x}, l.name + "/ReduceMean", {attrInts("axes", {1}), attrInt("keepdims", 0)});
}

}  // namespace

std::string EmitLayer::kernel() const {
  return plan.is_null() ? std::string() : plan.value("kernel", std::string());
}

void registerOnnxEmitters(OnnxEmitterTable& table) {
  table["conv2d"] = emitConv;
  table["batchnorm2d"] = emitBatchNorm;
  table["maxpool2d"] = emitPool;
  table["avgpool2d"] = emitPool;
  table["adaptive_avgpool2d"] = emitAdaptiveAvgPool;
  table["linear"] = emitLinear;
  table["flatten"] = emitFlatten;
  table["dropout"] = emitNothing;
  table["identity"] = emitNothing;
  table["batchnorm1d"] = emitBatchNorm;
  table["layernorm"] = [](OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
    return emitLayerNorm(ctx, l.name, x, static_cast<const LayerNormLayer&>(l.layer).eps());
  };
  table["relu"] = unary("Relu");
  table["tanh"] = unary("Tanh");
  table["sigmoid"] = unary("Sigmoid");
  table["hardswish"] = unary("HardSwish");
  table["hardsigmoid"] = emitHardSigmoid;
  table["silu"] = [](OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
    return emitSilu(ctx, l.name, x);
  };
  table["gelu"] = [](OnnxEmitContext& ctx, const EmitLayer& l, const std::string& x) {
    return emitGelu(ctx, l.name, x);
  };
  table["residual"] = emitResidual;
  table["squeeze_excitation"] = emitSqueezeExcitation;
  table["stochastic_depth"] = emitNothing;  // the identity in eval mode
  table["layernorm2d"] = emitLayerNorm2d;
  table["channel_linear"] = emitChannelLinear;
  table["layer_scale"] = emitLayerScale;
  table["patch_embed"] = emitPatchEmbed;
  table["position_embedding"] = emitPositionEmbedding;
  table["encoder_block"] = emitEncoderBlock;
  table["token_pool"] = emitTokenPool;
}

// OnnxEmitContext
// -----------------------------------------------------------------------------------------------------

OnnxEmitContext::OnnxEmitContext(OnnxGraph& graph, const ModelArtifact& artifact,
                                 const OnnxEmitterTable& emitters)
    : m_graph(graph), m_artifact(artifact), m_emitters(emitters) {
  if (artifact.isQuantized()) {
    // qat artifacts have the static layout: activations quantized with the ranges their training learned.
    const std::string mode = artifact.quantization.value("mode", std::string());
    m_static = mode == "static" || mode == "qat";
    if (m_static) {
      // The input is float; the first int8 kernel quantizes it with the calibrated input qparams.
      const json& in = artifact.quantization.at("input");
      m_grid = {false, in.at("scale").get<double>(), in.at("zero_point").get<int64_t>()};
    }
  }
}

std::string OnnxEmitContext::floatTensor(const std::string& name) {
  const torch::Tensor t = m_artifact.tensor(name);
  if (!t.defined()) {
    throw UserError("artifact " + m_artifact.name + " lacks tensor " + name + ", which its layer list needs",
                    "The artifact is damaged or from another version: compress again.");
  }
  return m_graph.addInitializer(name, t.to(torch::kFloat32));
}

torch::Tensor OnnxEmitContext::quantizedTensor(const std::string& name, bool required) const {
  for (const auto& [n, t] : m_artifact.quantized) {
    if (n == name) return t;
  }
  if (required) {
    throw UserError("int8 artifact " + m_artifact.name + " lacks tensor " + name,
                    "Run the quantize pass again.");
  }
  return {};
}

std::string OnnxEmitContext::dequantizedWeight(const std::string& name) {
  const torch::Tensor w = quantizedTensor(name + ".weight");
  if (w.scalar_type() != torch::kInt8) {
    throw UserError("int8 artifact " + m_artifact.name + ": " + name + ".weight is not int8",
                    "Run the quantize pass again.");
  }
  const std::string weight = m_graph.addInitializer(name + ".weight", w);
  const std::string scale = m_graph.addInitializer(
      name + ".weight.scale", quantizedTensor(name + ".weight.scale").to(torch::kFloat32));
  // ONNX wants the zero point in the weight's own type (int8); the artifact keeps int64 (all 0, symmetric).
  const std::string zero_point = m_graph.addInitializer(
      name + ".weight.zero_point", quantizedTensor(name + ".weight.zero_point").to(torch::kInt8));
  return m_graph.add("DequantizeLinear", {weight, scale, zero_point}, name + "/DequantizeLinear_weight",
                     {attrInt("axis", 0)});
}

std::string OnnxEmitContext::quantizeDequantize(const std::string& x, double scale, int64_t zero_point,
                                                const std::string& base) {
  const std::string s = m_graph.constFloat(base + ".output.scale", static_cast<float>(scale));
  const std::string z =
      m_graph.addInitializer(base + ".output.zero_point", torch::scalar_tensor(zero_point, torch::kUInt8));
  const std::string q = m_graph.add("QuantizeLinear", {x, s, z}, base + "/QuantizeLinear");
  return m_graph.add("DequantizeLinear", {q, s, z}, base + "/DequantizeLinear");
}

std::string OnnxEmitContext::onGrid(const std::string& x, const ActivationGrid& grid,
                                    const std::string& base) {
  return grid.on_grid ? x : quantizeDequantize(x, grid.scale, grid.zero_point, base + ".input");
}

std::string OnnxEmitContext::emitOne(const EmitLayer& l, const std::string& x) {
  const auto it = m_emitters.find(l.layer.type());
  if (it == m_emitters.end()) {
    throw UserError(l.name + " (" + l.layer.type() + "): ONNX export has no emitter for this layer type",
                    std::string("Export as TorchScript or safetensors: ") + kOtherFormats + ".");
  }
  return it->second(*this, l, x);
}

// Mirrors QuantizedNet::runList: which layers see int8 activations, where LibTorch quantizes and with which
// qparams, and which relus ride on the layer before them.
std::string OnnxEmitContext::emitList(const std::vector<LayerPtr>& layers, const std::string& prefix,
                                      Shape shape, std::string x, const json& plan) {
  if (!plan.is_null() && (!plan.is_array() || plan.size() != layers.size())) {
    throw UserError("int8 artifact " + m_artifact.name + ": its quantization plan for " + prefix +
                        " does not match the layer list",
                    "Run the quantize pass again.");
  }
  for (size_t i = 0; i < layers.size(); ++i) {
    const EmitLayer l{*layers[i], prefix + "." + std::to_string(i), shape, plan.is_null() ? json() : plan[i]};
    const std::string kernel = l.kernel();
    const std::string type = l.layer.type();
    if (kernel == "fused") {
      // The relu was applied with the layer before it (conv2d_relu, linear_relu, add_relu).
    } else if (kernel == "int8") {
      if (m_static) x = onGrid(x, m_grid, l.name);
      x = emitOne(l, x);
      if (l.plan.value("relu", false)) x = m_graph.add("Relu", {x}, l.name + "/Relu");
      const json& out = l.plan.at("output");
      m_grid = {true, out.at("scale").get<double>(), out.at("zero_point").get<int64_t>()};
      x = quantizeDequantize(x, m_grid.scale, m_grid.zero_point, l.name);
    } else if (kernel == "int8_dynamic") {
      x = emitOne(l, x);
      if (l.plan.value("relu", false)) x = m_graph.add("Relu", {x}, l.name + "/Relu");
    } else if (kernel == "float" && m_static) {
      // Dequantized in, float out; the next int8 kernel quantizes with this layer's calibrated qparams.
      x = emitOne(l, x);
      const json& out = l.plan.at("output");
      m_grid = {false, out.at("scale").get<double>(), out.at("zero_point").get<int64_t>()};
    } else {
      // Float models, residuals, dynamic-mode float layers and passthrough layers. On quint8 LibTorch's
      // average pools round their means back onto the input's grid; max pool, relu, flatten and friends stay
      // on it.
      x = emitOne(l, x);
      if (kernel == "passthrough" && m_static && m_grid.on_grid &&
          (type == "avgpool2d" || type == "adaptive_avgpool2d")) {
        x = quantizeDequantize(x, m_grid.scale, m_grid.zero_point, l.name);
      }
    }
    shape = l.layer.outputShape(shape);
  }
  return x;
}

}  // namespace wb::onnx_export
