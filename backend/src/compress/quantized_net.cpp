#include "compress/quantized_net.h"

#include <ATen/core/dispatch/Dispatcher.h>

#include <map>
#include <mutex>

#include "compress/quantization.h"
#include "model/layers/conv_layers.h"
#include "model/layers/residual_layer.h"
#include "workbench/errors.h"

namespace wb {
namespace {

using nlohmann::json;

// Parameterless layers whose modules work on quint8 tensors as they do on float ones.
bool worksOnQuint8(const std::string& type) {
  return type == "maxpool2d" || type == "avgpool2d" || type == "adaptive_avgpool2d" || type == "flatten" ||
         type == "dropout" || type == "identity" || type == "relu" ||
         type == "stochastic_depth";  // the identity in eval mode, the only mode an int8 model runs in
}

std::vector<QNode> planList(const std::vector<LayerPtr>& layers, Shape shape, const std::string& prefix,
                            bool static_mode) {
  std::vector<QNode> nodes;
  for (size_t i = 0; i < layers.size(); ++i) {
    QNode n;
    n.name = prefix + "." + std::to_string(i);
    n.layer = layers[i];
    n.input_shape = shape;
    const std::string type = layers[i]->type();
    QNode* prev = nodes.empty() ? nullptr : &nodes.back();
    const bool prev_fusable = prev != nullptr && !prev->relu &&
                              (prev->kernel == QKernel::Int8 || prev->kernel == QKernel::Int8Dynamic ||
                               prev->kernel == QKernel::Residual);
    if (type == "residual") {
      const auto& r = static_cast<const ResidualLayer&>(*layers[i]);
      n.kernel = QKernel::Residual;
      n.body = planList(r.body(), shape, n.name + ".layers", static_mode);
      n.shortcut = planList(r.shortcut(), shape, n.name + ".shortcut", static_mode);
    } else if (type == "linear") {
      n.kernel = static_mode ? QKernel::Int8 : QKernel::Int8Dynamic;
    } else if (type == "conv2d" && static_mode) {
      n.kernel = QKernel::Int8;
    } else if (type == "relu" && prev_fusable) {
      prev->relu = true;
      n.kernel = QKernel::Fused;
    } else if (worksOnQuint8(type) || (!static_mode && layers[i]->parameterCount(shape) == 0)) {
      n.kernel = QKernel::Passthrough;
    } else {
      n.kernel = QKernel::Float;
      if (type == "conv2d") {
        n.reason =
            "dynamic quantization has int8 kernels for linear layers only (mode \"static\" quantizes "
            "convolutions)";
      } else if (type == "batchnorm2d") {
        n.reason = "a batch norm that does not follow a conv2d cannot be folded, and has no int8 kernel here";
      } else {
        n.reason = "no int8 kernel for " + type + " in LibTorch's quantized CPU ops";
      }
      if (static_mode) n.reason += "; runs in float between dequantize and quantize";
    }
    shape = layers[i]->outputShape(shape);
    nodes.push_back(std::move(n));
  }
  return nodes;
}

void collectFloat(const std::vector<QNode>& nodes, std::vector<std::string>& out) {
  for (const QNode& n : nodes) {
    if (n.kernel == QKernel::Float) out.push_back(n.name + " (" + n.layer->type() + "): " + n.reason);
    collectFloat(n.body, out);
    collectFloat(n.shortcut, out);
  }
}

}  // namespace

torch::nn::AnyModule floatModule(const QNode& n, const ModelArtifact& artifact) {
  torch::nn::AnyModule m = n.layer->instantiate(n.input_shape);
  torch::NoGradGuard no_grad;
  auto load = [&](const std::string& key, torch::Tensor& target) {
    const std::string name = n.name + "." + key;
    const torch::Tensor value = artifact.tensor(name);
    if (!value.defined() || !value.sizes().equals(target.sizes())) {
      throw UserError("artifact " + artifact.name + ": float tensor " + name +
                          (value.defined() ? " has the wrong shape" : " is missing"),
                      "The artifact does not match its own layer list: run the quantize pass again.");
    }
    target.copy_(value);
  };
  for (auto& item : m.ptr()->named_parameters()) load(item.key(), item.value());
  for (auto& item : m.ptr()->named_buffers()) load(item.key(), item.value());
  m.ptr()->eval();
  return m;
}

namespace {

torch::Tensor toQuint8(const torch::Tensor& x, const QParams& q) {
  if (x.is_quantized()) return x;
  return torch::quantize_per_tensor(x, q.scale, q.zero_point, torch::kQUInt8);
}

torch::Tensor toFloat(const torch::Tensor& x) {
  return x.is_quantized() ? x.dequantize() : x;
}

c10::IValue callOp(const c10::OperatorHandle& op, std::vector<c10::IValue> args) {
  torch::jit::Stack stack(std::move(args));
  op.callBoxed(&stack);
  return stack.at(0);
}

json qparamsJson(const QParams& q) {
  return {{"scale", q.scale}, {"zero_point", q.zero_point}};
}

QParams qparamsFrom(const json& j) {
  return {j.at("scale").get<double>(), j.at("zero_point").get<int64_t>()};
}

}  // namespace

void readPlanJson(std::vector<QNode>& nodes, const json& list, bool static_mode) {
  if (!list.is_array() || list.size() != nodes.size()) {
    throw std::runtime_error("the per-layer list does not match the layer list");
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    QNode& n = nodes[i];
    const json& j = list[i];
    if (j.at("kernel").get<std::string>() != kernelName(n.kernel) || j.value("relu", false) != n.relu) {
      throw std::runtime_error(n.name + " is planned as " + kernelName(n.kernel) + ", the artifact says " +
                               j.at("kernel").get<std::string>());
    }
    const bool has_output = static_mode && (n.kernel == QKernel::Int8 || n.kernel == QKernel::Residual ||
                                            n.kernel == QKernel::Float);
    if (has_output) n.output = qparamsFrom(j.at("output"));
    if (n.kernel == QKernel::Residual) {
      readPlanJson(n.body, j.at("body"), static_mode);
      readPlanJson(n.shortcut, j.at("shortcut"), static_mode);
    }
  }
}

namespace {

// Calibration: float all the way, every node's output observed.
torch::Tensor calibrateList(std::vector<QNode>& nodes, torch::Tensor x) {
  for (QNode& n : nodes) {
    if (n.kernel == QKernel::Residual) {
      torch::Tensor body = calibrateList(n.body, x);
      torch::Tensor shortcut = n.shortcut.empty() ? x : calibrateList(n.shortcut, x);
      x = body + shortcut;
    } else {
      x = n.module.forward(x);
    }
    n.observer->observe(x);
  }
  return x;
}

void prepareCalibration(std::vector<QNode>& nodes, const ModelArtifact& folded, ObserverKind observer,
                        QRange range) {
  for (QNode& n : nodes) {
    n.observer = makeObserver(observer, range);
    if (n.kernel == QKernel::Residual) {
      prepareCalibration(n.body, folded, observer, range);
      prepareCalibration(n.shortcut, folded, observer, range);
    } else {
      n.module = floatModule(n, folded);
    }
  }
}

// A producer with a fused relu takes the qparams observed after the relu.
void finishCalibration(std::vector<QNode>& nodes) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    QNode& n = nodes[i];
    finishCalibration(n.body);
    finishCalibration(n.shortcut);
    const QNode& observed = n.relu ? nodes.at(i + 1) : n;
    n.output = observed.observer->qparams();
  }
  for (QNode& n : nodes) {
    n.observer.reset();
    n.module = torch::nn::AnyModule();
  }
}

}  // namespace

torch::Tensor quantizedTensor(const ModelArtifact& a, const std::string& name, bool required) {
  for (const auto& [n, t] : a.quantized) {
    if (n == name) return t;
  }
  if (required) {
    throw UserError("int8 artifact " + a.name + " lacks tensor " + name, "Run the quantize pass again.");
  }
  return {};
}

std::string kernelName(QKernel kernel) {
  switch (kernel) {
    case QKernel::Int8:
      return "int8";
    case QKernel::Int8Dynamic:
      return "int8_dynamic";
    case QKernel::Residual:
      return "residual";
    case QKernel::Fused:
      return "fused";
    case QKernel::Passthrough:
      return "passthrough";
    case QKernel::Float:
      return "float";
  }
  return "?";
}

std::vector<QNode> planQuantization(const std::vector<LayerPtr>& layers, const Shape& input_shape,
                                    QuantizeMode mode) {
  return planList(layers, input_shape, "layers", mode != QuantizeMode::Dynamic);
}

std::vector<std::string> floatLayerNotes(const std::vector<QNode>& plan) {
  std::vector<std::string> out;
  collectFloat(plan, out);
  return out;
}

QParams calibratePlan(std::vector<QNode>& plan, const ModelArtifact& folded, ObserverKind observer,
                      QRange range, const std::function<std::optional<torch::Tensor>()>& next,
                      int64_t max_batches, int64_t& batches_seen) {
  prepareCalibration(plan, folded, observer, range);
  auto input_observer = makeObserver(observer, range);
  torch::NoGradGuard no_grad;
  batches_seen = 0;
  while (batches_seen < max_batches) {
    std::optional<torch::Tensor> batch = next();
    if (!batch) break;
    const torch::Tensor x = batch->to(torch::kCPU, torch::kFloat32);
    input_observer->observe(x);
    calibrateList(plan, x);
    ++batches_seen;
  }
  if (batches_seen == 0) {
    throw UserError("static int8 quantization got no calibration batch",
                    "Give the quantize pass training data (calibration_batches >= 1).");
  }
  finishCalibration(plan);
  return input_observer->qparams();
}

json planToJson(const std::vector<QNode>& plan) {
  json list = json::array();
  for (const QNode& n : plan) {
    json j = {{"name", n.name}, {"type", n.layer->type()}, {"kernel", kernelName(n.kernel)}};
    if (n.relu) j["relu"] = true;
    if (!n.reason.empty()) j["reason"] = n.reason;
    if (n.kernel == QKernel::Int8 || n.kernel == QKernel::Residual || n.kernel == QKernel::Float) {
      j["output"] = qparamsJson(n.output);
    }
    if (n.kernel == QKernel::Residual) {
      j["body"] = planToJson(n.body);
      j["shortcut"] = planToJson(n.shortcut);
    }
    list.push_back(std::move(j));
  }
  return list;
}

const c10::OperatorHandle& quantizedOp(const std::string& name, const std::string& overload) {
  static std::mutex mutex;
  static std::map<std::string, c10::OperatorHandle> cache;
  const std::string key = name + "." + overload;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto handle = c10::Dispatcher::singleton().findSchema(c10::OperatorName("quantized::" + name, overload));
  if (!handle) {
    throw UserError(
        "this LibTorch build (" + std::string(TORCH_VERSION) + ") has no quantized::" + name +
            (overload.empty() ? "" : "." + overload) + " operator, which the int8 model needs",
        "Use a LibTorch build with the quantized CPU ops (1.13 to 2.x), or leave out the quantize "
        "pass.");
  }
  return cache.emplace(key, *handle).first->second;
}

// QuantizedNet
// -----------------------------------------------------------------------------------------------------

QuantizedNet::QuantizedNet(const ModelArtifact& artifact) : m_inputShape(artifact.input_shape) {
  const json& q = artifact.quantization;
  const std::string word = q.value("mode", std::string());
  const std::optional<QuantizeMode> mode = fromWord<QuantizeMode>(word);
  if (!mode) {
    throw UserError("artifact " + artifact.name + " is int8 in an unknown mode \"" + word + "\"",
                    "It was written by another version of the workbench: run the quantize pass again.");
  }
  // qat's int8 form is static's: the activation qparams come from training's observers instead of
  // calibration.
  m_static = *mode != QuantizeMode::Dynamic;
  m_reduceRange = q.value("reduce_range", false);
  m_engine = q.value("engine", std::string());
  const auto engines = supportedQuantizedEngines();
  if (std::find(engines.begin(), engines.end(), m_engine) == engines.end()) {
    std::string have;
    for (const auto& e : engines) have += (have.empty() ? "" : ", ") + e;
    throw UserError("artifact " + artifact.name + " holds int8 weights for the " + m_engine +
                        " engine, which this LibTorch build lacks (it has: " + have + ")",
                    "Quantize again on this machine with engine \"auto\".");
  }
  selectQuantizedEngine(m_engine);
  m_plan = planQuantization(artifactLayers(artifact), m_inputShape, *mode);
  try {
    readPlanJson(m_plan, q.at("layers"), m_static);
    if (m_static) m_input = qparamsFrom(q.at("input"));
  } catch (const std::exception& e) {
    throw UserError("int8 artifact " + artifact.name + ": its quantization record does not fit its layers (" +
                        e.what() + ")",
                    "It was written by another version of the workbench: run the quantize pass again.");
  }

  const auto& linear_prepack = quantizedOp("linear_prepack");
  const auto& conv_prepack = quantizedOp("conv2d_prepack");
  std::function<void(std::vector<QNode>&)> prepare = [&](std::vector<QNode>& nodes) {
    for (QNode& n : nodes) {
      if (n.kernel == QKernel::Residual) {
        prepare(n.body);
        prepare(n.shortcut);
      } else if (n.kernel == QKernel::Int8 || n.kernel == QKernel::Int8Dynamic) {
        const torch::Tensor w =
            perChannelQInt8(quantizedTensor(artifact, n.name + ".weight", true),
                            quantizedTensor(artifact, n.name + ".weight.scale", true),
                            quantizedTensor(artifact, n.name + ".weight.zero_point", true));
        const torch::Tensor b = quantizedTensor(artifact, n.name + ".bias", false);
        const c10::IValue bias = b.defined() ? c10::IValue(b.to(torch::kFloat32)) : c10::IValue();
        if (n.layer->type() == "conv2d") {
          const auto& c = static_cast<const Conv2dLayer&>(*n.layer);
          n.packed = callOp(conv_prepack, {w, bias, std::vector<int64_t>{c.stride().h, c.stride().w},
                                           std::vector<int64_t>{c.padding().h, c.padding().w},
                                           std::vector<int64_t>{1, 1}, c.groups()});
        } else {
          n.packed = callOp(linear_prepack, {w, bias});
        }
      } else if (n.kernel == QKernel::Float || n.kernel == QKernel::Passthrough) {
        n.module = floatModule(n, artifact);
      }
    }
  };
  prepare(m_plan);
  // Look up every op the forward uses now, so a missing one is reported when the model is made.
  if (m_static) {
    for (const char* op : {"linear", "linear_relu", "add", "add_relu"}) quantizedOp(op);
    quantizedOp("conv2d", "new");
    quantizedOp("conv2d_relu", "new");
  } else {
    quantizedOp("linear_dynamic");
    quantizedOp("linear_relu_dynamic");
  }
}

torch::Tensor QuantizedNet::runList(std::vector<QNode>& nodes, torch::Tensor x, QParams& point) {
  for (QNode& n : nodes) {
    switch (n.kernel) {
      case QKernel::Int8: {
        const bool conv = n.layer->type() == "conv2d";
        const auto& op = conv ? quantizedOp(n.relu ? "conv2d_relu" : "conv2d", "new")
                              : quantizedOp(n.relu ? "linear_relu" : "linear");
        x = callOp(op, {toQuint8(x, point), n.packed, n.output.scale, n.output.zero_point}).toTensor();
        point = n.output;
        break;
      }
      case QKernel::Int8Dynamic: {
        const auto& op = quantizedOp(n.relu ? "linear_relu_dynamic" : "linear_dynamic");
        x = callOp(op, {toFloat(x).contiguous(), n.packed, m_reduceRange}).toTensor();
        break;
      }
      case QKernel::Residual: {
        QParams body_point = point;
        QParams shortcut_point = point;
        torch::Tensor body = runList(n.body, x, body_point);
        torch::Tensor shortcut = n.shortcut.empty() ? x : runList(n.shortcut, x, shortcut_point);
        if (m_static) {
          const auto& op = quantizedOp(n.relu ? "add_relu" : "add");
          x = callOp(op, {toQuint8(body, body_point), toQuint8(shortcut, shortcut_point), n.output.scale,
                          n.output.zero_point})
                  .toTensor();
          point = n.output;
        } else {
          x = toFloat(body) + toFloat(shortcut);
          if (n.relu) x = torch::relu(x);
        }
        break;
      }
      case QKernel::Fused:
        break;
      case QKernel::Passthrough:
        x = n.module.forward(x);
        break;
      case QKernel::Float:
        x = n.module.forward(toFloat(x));
        point = n.output;
        break;
    }
  }
  return x;
}

torch::Tensor QuantizedNet::forward(const torch::Tensor& input) {
  const auto sizes = input.sizes();
  if (input.dim() != static_cast<int64_t>(m_inputShape.size()) + 1 ||
      !std::equal(m_inputShape.begin(), m_inputShape.end(), sizes.begin() + 1)) {
    throw UserError("the int8 model was built for samples of shape " + shapeToString(m_inputShape) +
                        " but got a batch of shape " + shapeToString(Shape(sizes.begin(), sizes.end())),
                    "check that the data is the data the model was built for");
  }
  torch::NoGradGuard no_grad;
  // The engine is process-wide; another model may have switched it since this one was made.
  if (currentQuantizedEngine() != m_engine) selectQuantizedEngine(m_engine);
  QParams point = m_input;
  torch::Tensor x = input.to(torch::kCPU, torch::kFloat32).contiguous();
  return toFloat(runList(m_plan, x, point));
}

std::unique_ptr<InferenceModel> makeQuantizedModel(const ModelArtifact& artifact) {
  return std::make_unique<QuantizedNet>(artifact);
}

}  // namespace wb
