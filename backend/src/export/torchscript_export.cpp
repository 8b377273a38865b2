#include "export/torchscript_export.h"

#include <torch/csrc/jit/frontend/resolver.h>
#include <torch/csrc/jit/frontend/sugared_value.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "compress/observers.h"
#include "compress/quantization.h"
#include "compress/quantized_net.h"
#include "model/layers/conv_layers.h"
#include "model/layers/dense_layers.h"
#include "model/layers/mobile_conv_layers.h"
#include "model/layers/residual_layer.h"
#include "model/layers/transformer_layers.h"
#include "model/weights_file.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;
using torch::jit::Module;

// `torch.x` resolves to aten::x (what torch::jit's native resolver does) and `quantized.x` to quantized::x;
// the saved code prints the latter as ops.quantized.x, which the Python and C++ loaders resolve on their own.
struct ExportResolver : public torch::jit::Resolver {
  std::shared_ptr<torch::jit::SugaredValue> resolveValue(const std::string& name, torch::jit::GraphFunction&,
                                                         const torch::jit::SourceRange&) override {
    if (name == "torch") return std::make_shared<torch::jit::BuiltinModule>("aten");
    if (name == "quantized") return std::make_shared<torch::jit::BuiltinModule>("quantized");
    return nullptr;
  }
  c10::TypePtr resolveType(const std::string&, const torch::jit::SourceRange&) override { return nullptr; }
};

// A float literal that TorchScript reads back as the same double.
std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string ints(std::initializer_list<int64_t> values) {
  std::string s = "[";
  for (int64_t v : values) s += (s.size() > 1 ? ", " : "") + std::to_string(v);
  return s + "]";
}

std::string typeSuffix(const std::string& path) {
  std::string s;
  for (char c : path) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

const std::string kHead = "def forward(self, x: Tensor) -> Tensor:\n";

// Activation layers whose type is the name of the torch function computing them.
const std::set<std::string> kActivations = {"relu",      "gelu",        "tanh", "sigmoid",
                                            "hardswish", "hardsigmoid", "silu"};

// batchnorm1d has LibTorch's default eps; batchnorm2d its own.
double batchNormEps(const Layer& layer) {
  const auto* bn2d = dynamic_cast<const BatchNorm2dLayer*>(&layer);
  return bn2d != nullptr ? bn2d->eps() : BatchNorm2dLayer::kDefaultEps;
}
// quantize_per_tensor's dtype argument as the saved code writes it: ScalarType::QUInt8.
const std::string kQUInt8 = std::to_string(static_cast<int>(c10::ScalarType::QUInt8));

struct QState {
  bool quantized = false;  // a quint8 tensor at this point (static mode only)
  QParams point;           // the qparams an int8 kernel quantizes this point's float tensor with
};

class Builder {
 public:
  explicit Builder(const ModelArtifact& artifact)
      : m_a(artifact), m_cu(std::make_shared<torch::jit::CompilationUnit>()) {
    for (const auto& [name, t] : artifact.weights) m_tensors[name] = {t, false};
    for (const auto& [name, t] : artifact.buffers) m_tensors[name] = {t, true};
  }

  Module build() {
    const std::vector<LayerPtr> layers = artifactLayers(m_a);
    Module top = newModule("WorkbenchModel", "");
    std::string body;
    if (!m_a.isQuantized()) {
      top.register_module("layers", floatList(layers, "layers", m_a.input_shape));
      body = "    return self.layers.forward(x)\n";
    } else {
      const json& q = m_a.quantization;
      const std::string word = q.value("mode", std::string());
      const std::optional<QuantizeMode> mode = fromWord<QuantizeMode>(word);
      if (!mode) {
        throw UserError("artifact " + m_a.name + " is int8 in an unknown mode \"" + word + "\"",
                        "It was written by another version of the workbench: run the quantize pass again.");
      }
      m_static = *mode != QuantizeMode::Dynamic;  // qat artifacts have the static layout
      m_reduceRange = q.value("reduce_range", false);
      selectEngine(q.value("engine", std::string()));
      std::vector<QNode> plan = planQuantization(layers, m_a.input_shape, *mode);
      QState state;
      if (m_static) state.point = qparams(q.at("input"));
      top.register_module("layers", quantList(plan, q.at("layers"), "layers", state));
      body = "    x = self.layers.forward(x.contiguous())\n";
      body += state.quantized ? "    return x.dequantize()\n" : "    return x\n";
    }
    define(top, kHead + body, "the model");
    for (const auto& [name, entry] : m_tensors) {
      if (m_used.count(name) == 0) {
        throw UserError(
            "artifact " + m_a.name + ": tensor " + name + " belongs to no layer of its layer list",
            "The artifact does not match its own layer list: run the pass again.");
      }
    }
    top.eval();
    return top;
  }

 private:
  Module newModule(const std::string& kind, const std::string& path) {
    Module m(c10::QualifiedName("__torch__.workbench." + kind + (path.empty() ? "" : "_" + typeSuffix(path))),
             m_cu, /*shouldMangle=*/true);
    // Module::train and Python's .eval() set this attribute on every submodule.
    m.register_attribute("training", c10::BoolType::get(), false);
    return m;
  }

  void define(Module& m, const std::string& source, const std::string& what) {
    try {
      m.define(source, std::make_shared<ExportResolver>());
    } catch (const std::exception& e) {
      throw UserError("TorchScript export cannot express " + what + ": " + shortErrorText(e) + "\n" + source,
                      "Export the artifact as safetensors (its tensors) instead.");
    }
  }

  // Every float tensor named "<prefix>.<a>.<b>" as attribute b of submodule a of `m` (made on demand), so the
  // saved module's state dict has the artifact's names.
  void registerTensors(Module& m, const std::string& prefix) {
    const std::string start = prefix + ".";
    for (const auto& [name, entry] : m_tensors) {
      if (name.compare(0, start.size(), start) != 0 || m_used.count(name)) continue;
      std::vector<std::string> parts;
      size_t from = start.size();
      for (size_t dot; (dot = name.find('.', from)) != std::string::npos; from = dot + 1) {
        parts.push_back(name.substr(from, dot - from));
      }
      const std::string leaf = name.substr(from);
      Module owner = m;
      std::string path = prefix;
      for (const std::string& part : parts) {
        path += "." + part;
        if (!owner.hasattr(part)) owner.register_module(part, newModule("Params", path));
        owner = owner.attr(part).toModule();
      }
      torch::Tensor t = entry.first.detach().to(torch::kCPU).clone();
      if (!entry.second && t.is_floating_point()) t.requires_grad_(true);
      owner.register_parameter(leaf, t, /*is_buffer=*/entry.second);
      m_used.insert(name);
    }
  }

  void requireTensor(const std::string& name) {
    if (m_tensors.count(name) == 0) {
      throw UserError("artifact " + m_a.name + " lacks tensor " + name,
                      "The artifact does not match its own layer list: run the pass again.");
    }
  }

  // The forward of one float layer (also the passthrough and float layers of an int8 model).
  Module floatLayer(const LayerPtr& layer, const std::string& path, const Shape& in) {
    const std::string type = layer->type();
    Module m = newModule(type, path);
    if (type == "residual") {
      const auto& r = static_cast<const ResidualLayer&>(*layer);
      m.register_module("layers", floatList(r.body(), path + ".layers", in));
      std::string shortcut = "x";
      if (!r.shortcut().empty()) {
        m.register_module("shortcut", floatList(r.shortcut(), path + ".shortcut", in));
        shortcut = "self.shortcut.forward(x)";
      }
      define(m, kHead + "    return self.layers.forward(x) + " + shortcut + "\n", path + " (residual)");
      return m;
    }
    registerTensors(m, path);
    std::string src;
    auto bias = [&](const std::string& attr) {
      return m_tensors.count(path + "." + attr) ? "self." + attr : std::string("None");
    };
    if (type == "conv2d") {
      const auto& c = static_cast<const Conv2dLayer&>(*layer);
      requireTensor(path + ".weight");
      src = "    return torch.conv2d(x, self.weight, " + bias("bias") + ", " +
            ints({c.stride().h, c.stride().w}) + ", " + ints({c.padding().h, c.padding().w}) + ", [1, 1], " +
            std::to_string(c.groups()) + ")\n";
    } else if (type == "linear") {
      requireTensor(path + ".weight");
      src = "    return torch.linear(x, self.weight, " + bias("bias") + ")\n";
    } else if (type == "batchnorm2d" || type == "batchnorm1d") {
      for (const char* t : {".weight", ".bias", ".running_mean", ".running_var"}) requireTensor(path + t);
      src =
          "    return torch.batch_norm(x, self.weight, self.bias, self.running_mean, self.running_var, "
          "False, 0.1, " +
          num(batchNormEps(*layer)) + ", True)\n";
    } else if (type == "layernorm") {
      src = "    return torch.layer_norm(x, [" + std::to_string(in.back()) + "], " + bias("weight") + ", " +
            bias("bias") + ", " + num(static_cast<const LayerNormLayer&>(*layer).eps()) + ", True)\n";
    } else if (type == "maxpool2d" || type == "avgpool2d") {
      const auto& p = static_cast<const Pool2dLayer&>(*layer);
      const std::string k = ints({p.kernel().h, p.kernel().w}), s = ints({p.stride().h, p.stride().w}),
                        pad = ints({p.padding().h, p.padding().w});
      src = type == "maxpool2d"
                ? "    return torch.max_pool2d(x, " + k + ", " + s + ", " + pad + ", [1, 1], False)\n"
                : "    return torch.avg_pool2d(x, " + k + ", " + s + ", " + pad + ", False, True, None)\n";
    } else if (type == "adaptive_avgpool2d") {
      const auto& p = static_cast<const AdaptiveAvgPool2dLayer&>(*layer);
      src = "    return torch.adaptive_avg_pool2d(x, " + ints({p.outputSize().h, p.outputSize().w}) + ")\n";
    } else if (type == "flatten") {
      src = "    return torch.flatten(x, 1)\n";
    } else if (const std::string mobile = mobileConvSource(*layer, path, in); !mobile.empty()) {
      src = mobile;
    } else if (type == "dropout" || type == "identity" || type == "stochastic_depth") {
      src = "    return x\n";  // dropout does nothing in eval mode, the only mode an exported model runs in
    } else if (kActivations.count(type) != 0) {
      src = "    return torch." + type + "(x)\n";
    } else if (type == "patch_embed") {
      const int64_t p = static_cast<const PatchEmbedLayer&>(*layer).patchSize();
      requireTensor(path + ".proj.weight");
      src = "    y = torch.conv2d(x, self.proj.weight, " + bias("proj.bias") + ", " + ints({p, p}) +
            ", [0, 0], [1, 1], 1)\n    return y.flatten(2).transpose(1, 2)\n";
    } else if (type == "position_embedding") {
      requireTensor(path + ".pos_embed");
      if (static_cast<const PositionEmbeddingLayer&>(*layer).clsToken()) {
        requireTensor(path + ".cls_token");
        src = "    x = torch.cat([self.cls_token.expand([x.size(0), -1, -1]), x], 1)\n";
      }
      src += "    return x + self.pos_embed\n";
    } else if (type == "encoder_block") {
      src = encoderBlockSource(static_cast<const EncoderBlockLayer&>(*layer), path, in);
    } else if (type == "token_pool") {
      src = static_cast<const TokenPoolLayer&>(*layer).mode() == "cls" ? "    return x.select(1, 0)\n"
                                                                       : "    return x.mean([1])\n";
    } else {
      throw UserError("TorchScript export has no form for layer " + path + " (" + type + ")",
                      "Export it as safetensors (its tensors), or as ONNX if that format takes it.");
    }
    define(m, kHead + src, path + " (" + type + ")");
    return m;
  }

  // The forward of a layer of mobile_conv_layers.h; "" for another type.
  std::string mobileConvSource(const Layer& layer, const std::string& path, const Shape& in) {
    const std::string type = layer.type();
    if (type == "squeeze_excitation") {
      return squeezeExcitationSource(static_cast<const SqueezeExcitationLayer&>(layer), path);
    }
    if (type == "layernorm2d") {
      for (const char* t : {".weight", ".bias"}) requireTensor(path + t);
      return "    y = torch.layer_norm(x.permute([0, 2, 3, 1]), [" + std::to_string(in.at(0)) +
             "], self.weight, self.bias, " + num(static_cast<const LayerNorm2dLayer&>(layer).eps()) +
             ", True)\n    return y.permute([0, 3, 1, 2])\n";
    }
    if (type == "channel_linear") {
      requireTensor(path + ".weight");
      const std::string bias = m_tensors.count(path + ".bias") ? "self.bias" : "None";
      return "    y = torch.linear(x.permute([0, 2, 3, 1]), self.weight, " + bias +
             ")\n    return y.permute([0, 3, 1, 2])\n";
    }
    if (type == "layer_scale") {
      requireTensor(path + ".layer_scale");
      return "    return x * self.layer_scale\n";
    }
    return {};
  }

  // torchvision's SqueezeExcitation: pooled, squeezed and expanded by the 1x1 convs fc1 and fc2, multiplied
  // in.
  std::string squeezeExcitationSource(const SqueezeExcitationLayer& se, const std::string& path) {
    for (const char* t : {".fc1.weight", ".fc1.bias", ".fc2.weight", ".fc2.bias"}) requireTensor(path + t);
    const std::string conv = ", [1, 1], [0, 0], [1, 1], 1)";
    return "    s = torch.adaptive_avg_pool2d(x, [1, 1])\n"
           "    s = torch." +
           wordString(se.activation()) + "(torch.conv2d(s, self.fc1.weight, self.fc1.bias" + conv +
           ")\n    s = torch." + wordString(se.scaleActivation()) +
           "(torch.conv2d(s, self.fc2.weight, self.fc2.bias" + conv + ")\n    return s * x\n";
  }

  // LibTorch's MultiheadAttention step by step (torch::nn::functional::multi_head_attention_forward with
  // query = key = value, eval mode), so the exported block gives the engine's numbers.
  std::string encoderBlockSource(const EncoderBlockLayer& block, const std::string& path, const Shape& in) {
    for (const char* t : {".norm1.weight", ".norm1.bias", ".attn.in_proj_weight", ".attn.in_proj_bias",
                          ".attn.out_proj.weight", ".attn.out_proj.bias", ".norm2.weight", ".norm2.bias",
                          ".fc1.weight", ".fc1.bias", ".fc2.weight", ".fc2.bias"}) {
      requireTensor(path + t);
    }
    const int64_t d = in.at(1);
    const int64_t heads = block.heads();
    const int64_t hd = d / heads;
    const std::string D = std::to_string(d), H = std::to_string(heads), HD = std::to_string(hd);
    return "    n = x.size(1)\n"
           "    b = x.size(0)\n"
           "    h = torch.layer_norm(x, [" +
           D + "], self.norm1.weight, self.norm1.bias, " + num(block.eps()) +
           ", True).transpose(0, 1)\n"
           "    qkv = torch.linear(h, self.attn.in_proj_weight, self.attn.in_proj_bias).chunk(3, -1)\n"
           "    q = qkv[0] * " +
           num(std::pow(static_cast<double>(hd), -0.5)) +
           "\n"
           "    q = q.contiguous().view([n, b * " +
           H + ", " + HD +
           "]).transpose(0, 1)\n"
           "    k = qkv[1].contiguous().view([-1, b * " +
           H + ", " + HD +
           "]).transpose(0, 1)\n"
           "    v = qkv[2].contiguous().view([-1, b * " +
           H + ", " + HD +
           "]).transpose(0, 1)\n"
           "    w = torch.softmax(torch.bmm(q, k.transpose(1, 2)), -1)\n"
           "    a = torch.bmm(w, v).transpose(0, 1).contiguous().view([n, b, " +
           D +
           "])\n"
           "    a = torch.linear(a, self.attn.out_proj.weight, self.attn.out_proj.bias)\n"
           "    x = x + a.transpose(0, 1)\n"
           "    h = torch.layer_norm(x, [" +
           D + "], self.norm2.weight, self.norm2.bias, " + num(block.eps()) +
           ", True)\n"
           "    h = torch.linear(torch.gelu(torch.linear(h, self.fc1.weight, self.fc1.bias)), "
           "self.fc2.weight, "
           "self.fc2.bias)\n"
           "    return x + h\n";
  }

  Module floatList(const std::vector<LayerPtr>& layers, const std::string& path, Shape shape) {
    Module m = newModule("LayerList", path);
    std::string src;
    for (size_t i = 0; i < layers.size(); ++i) {
      const std::string index = std::to_string(i);
      m.register_module(index, floatLayer(layers[i], path + "." + index, shape));
      src += "    x = getattr(self, \"" + index + "\").forward(x)\n";
      shape = layers[i]->outputShape(shape);
    }
    define(m, kHead + src + "    return x\n", path);
    return m;
  }

  // int8
  // -----------------------------------------------------------------------------------------------------

  void selectEngine(const std::string& engine) {
    const auto engines = supportedQuantizedEngines();
    if (std::find(engines.begin(), engines.end(), engine) == engines.end()) {
      std::string have;
      for (const auto& e : engines) have += (have.empty() ? "" : ", ") + e;
      throw UserError("artifact " + m_a.name + " holds int8 weights for the " + engine +
                          " engine, which this LibTorch build lacks (it has: " + have + ")",
                      "Export it as safetensors, or quantize again on this machine with engine \"auto\".");
    }
    selectQuantizedEngine(engine);
  }

  static QParams qparams(const json& j) {
    return {j.at("scale").get<double>(), j.at("zero_point").get<int64_t>()};
  }

  torch::Tensor quantizedTensor(const std::string& name, bool required) {
    for (const auto& [n, t] : m_a.quantized) {
      if (n == name) return t;
    }
    if (required)
      throw UserError("int8 artifact " + m_a.name + " lacks tensor " + name, "Run the quantize pass again.");
    return {};
  }

  static std::string quantize(const std::string& var, const QParams& p) {
    return "    " + var + " = torch.quantize_per_tensor(" + var + ", " + num(p.scale) + ", " +
           std::to_string(p.zero_point) + ", " + kQUInt8 + ")\n";
  }

  // An int8 conv2d or linear: the engine's packed weights as an attribute, one quantized:: call.
  Module int8Layer(const QNode& n) {
    const bool conv = n.layer->type() == "conv2d";
    Module m = newModule(conv ? "QuantizedConv2d" : "QuantizedLinear", n.name);
    const torch::Tensor w = perChannelQInt8(quantizedTensor(n.name + ".weight", true),
                                            quantizedTensor(n.name + ".weight.scale", true),
                                            quantizedTensor(n.name + ".weight.zero_point", true));
    const torch::Tensor b = quantizedTensor(n.name + ".bias", false);
    const c10::IValue bias = b.defined() ? c10::IValue(b.to(torch::kFloat32)) : c10::IValue();
    torch::jit::Stack stack;
    if (conv) {
      const auto& c = static_cast<const Conv2dLayer&>(*n.layer);
      stack = {w,
               bias,
               std::vector<int64_t>{c.stride().h, c.stride().w},
               std::vector<int64_t>{c.padding().h, c.padding().w},
               std::vector<int64_t>{1, 1},
               c.groups()};
      quantizedOp("conv2d_prepack").callBoxed(&stack);
    } else {
      stack = {w, bias};
      quantizedOp("linear_prepack").callBoxed(&stack);
    }
    const c10::IValue packed = stack.at(0);
    m.register_attribute("packed", packed.type(), packed);
    std::string op;
    if (n.kernel == QKernel::Int8Dynamic) {
      op = std::string(n.relu ? "linear_relu_dynamic" : "linear_dynamic");
      quantizedOp(op);
      op = "    return quantized." + op + "(x.contiguous(), self.packed, " +
           (m_reduceRange ? "True" : "False") + ")\n";
    } else {
      const std::string name = std::string(conv ? "conv2d" : "linear") + (n.relu ? "_relu" : "");
      quantizedOp(name, conv ? "new" : "");
      op = "    return quantized." + name + "(x, self.packed, " + num(n.output.scale) + ", " +
           std::to_string(n.output.zero_point) + ")\n";
    }
    define(m, kHead + op, n.name + " (int8 " + n.layer->type() + ")");
    return m;
  }

  Module int8Residual(QNode& n, const json& record, QState& state) {
    Module m = newModule("QuantizedResidual", n.name);
    QState body = state, shortcut = state;
    m.register_module("layers", quantList(n.body, record.at("body"), n.name + ".layers", body));
    std::string src = "    a = self.layers.forward(x)\n";
    if (!n.shortcut.empty()) {
      m.register_module("shortcut",
                        quantList(n.shortcut, record.at("shortcut"), n.name + ".shortcut", shortcut));
      src += "    s = self.shortcut.forward(x)\n";
    } else {
      src += "    s = x\n";
    }
    if (m_static) {
      if (!body.quantized) src += quantize("a", body.point);
      if (!shortcut.quantized) src += quantize("s", shortcut.point);
      const std::string op = n.relu ? "add_relu" : "add";
      quantizedOp(op);
      src += "    return quantized." + op + "(a, s, " + num(n.output.scale) + ", " +
             std::to_string(n.output.zero_point) + ")\n";
      state = {true, n.output};
    } else {
      src += n.relu ? "    return torch.relu(a + s)\n" : "    return a + s\n";
      state.quantized = false;
    }
    define(m, kHead + src, n.name + " (int8 residual)");
    return m;
  }

  // QuantizedNet::runList written out: the quantize / dequantize steps between layers are known at export
  // time, so the code holds exactly the transitions the engine makes.
  Module quantList(std::vector<QNode>& nodes, const json& records, const std::string& path, QState& state) {
    if (!records.is_array() || records.size() != nodes.size()) {
      throw UserError(
          "int8 artifact " + m_a.name + ": its quantization record does not fit its layers at " + path,
          "It was written by another version of the workbench: run the quantize pass again.");
    }
    Module m = newModule("QuantizedLayerList", path);
    std::string src;
    for (size_t i = 0; i < nodes.size(); ++i) {
      QNode& n = nodes[i];
      const json& record = records[i];
      if (record.at("kernel").get<std::string>() != kernelName(n.kernel) ||
          record.value("relu", false) != n.relu) {
        throw UserError("int8 artifact " + m_a.name + ": " + n.name + " is planned as " +
                            kernelName(n.kernel) + ", the artifact says " +
                            record.at("kernel").get<std::string>(),
                        "It was written by another version of the workbench: run the quantize pass again.");
      }
      const bool has_output = m_static && (n.kernel == QKernel::Int8 || n.kernel == QKernel::Residual ||
                                           n.kernel == QKernel::Float);
      if (has_output) n.output = qparams(record.at("output"));
      const std::string index = std::to_string(i);
      const std::string call = "    x = getattr(self, \"" + index + "\").forward(x)\n";
      switch (n.kernel) {
        case QKernel::Int8:
          if (!state.quantized) src += quantize("x", state.point);
          m.register_module(index, int8Layer(n));
          src += call;
          state = {true, n.output};
          break;
        case QKernel::Int8Dynamic:
          if (state.quantized) src += "    x = x.dequantize()\n";
          m.register_module(index, int8Layer(n));
          src += call;
          state.quantized = false;
          break;
        case QKernel::Residual:
          m.register_module(index, int8Residual(n, record, state));
          src += call;
          break;
        case QKernel::Fused: {  // its relu runs inside the int8 kernel before it
          Module fused = newModule("Fused", n.name);
          define(fused, kHead + "    return x\n", n.name);
          m.register_module(index, fused);
          break;
        }
        case QKernel::Passthrough:
          m.register_module(index, floatLayer(n.layer, n.name, n.input_shape));
          src += call;
          break;
        case QKernel::Float:
          if (state.quantized) src += "    x = x.dequantize()\n";
          m.register_module(index, floatLayer(n.layer, n.name, n.input_shape));
          src += call;
          state = {false, m_static ? n.output : state.point};
          break;
      }
    }
    define(m, kHead + src + "    return x\n", path);
    return m;
  }

  const ModelArtifact& m_a;
  std::shared_ptr<torch::jit::CompilationUnit> m_cu;
  std::map<std::string, std::pair<torch::Tensor, bool>> m_tensors;  // float tensors: name -> (tensor, buffer)
  std::set<std::string> m_used;
  bool m_static = true;
  bool m_reduceRange = false;
};

Module torchScriptArtifact(const ModelArtifact& artifact) {
  Module m;
  try {
    m = torch::jit::load(artifact.torchscript, torch::Device(torch::kCPU));
  } catch (const c10::Error& e) {
    throw UserError(
        "the run's TorchScript model " + artifact.torchscript + " does not load (" + shortErrorText(e) + ")",
        "Train the run again: its model.pt is damaged.");
  }
  torch::NoGradGuard no_grad;
  auto copy = [&](const std::string& name, torch::Tensor target) {
    const torch::Tensor value = artifact.tensor(name);
    if (!value.defined() || !value.sizes().equals(target.sizes())) {
      throw UserError("artifact " + artifact.name + ": tensor " + name +
                          (value.defined() ? " has another shape" : " is missing") +
                          " than the TorchScript module's",
                      "The artifact does not match its module: run the pass again.");
    }
    target.copy_(value);
  };
  for (const auto& p : m.named_parameters(/*recurse=*/true)) copy(p.name, p.value);
  for (const auto& b : m.named_buffers(/*recurse=*/true)) copy(b.name, b.value);
  m.eval();
  return m;
}

}  // namespace

Module torchScriptModule(const ModelArtifact& artifact) {
  if (!artifact.torchscript.empty()) return torchScriptArtifact(artifact);
  return Builder(artifact).build();
}

void saveTorchScript(Module& module, const std::string& file,
                     const std::map<std::string, std::string>& extra_files) {
  torch::jit::ExtraFilesMap extra(extra_files.begin(), extra_files.end());
  module.save(file, extra);
}

}  // namespace wb
