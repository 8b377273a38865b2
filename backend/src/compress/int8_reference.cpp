#include "compress/int8_reference.h"

#include <map>

#include "compress/observers.h"
#include "compress/quantized_net.h"
#include "model/layers/conv_layers.h"
#include "workbench/errors.h"

namespace wb {
namespace {

// Where the int8 model holds its activation: on a quint8 grid (qparams), or in float (the next int8 layer
// quantizes it with `q`).
struct Point {
  QParams q;
  bool on_grid = false;
};

// quantize_per_tensor then dequantize, in float64: round half to even (nearbyint, as LibTorch and ONNX's
// QuantizeLinear round), clamped to quint8's [0, 255].
torch::Tensor onGrid(const torch::Tensor& x, const QParams& q) {
  const double zp = static_cast<double>(q.zero_point);
  return ((x / q.scale).round() + zp).clamp(0, 255).sub(zp).mul(q.scale);
}

// The dynamic kernels' input qparams, from the batch's own range (PyTorch's dynamic linear: min/max widened
// to include 0, the full or the reduced quint8 range).
QParams dynamicQParams(const torch::Tensor& x, bool reduce_range) {
  return affineQParams(x.min().item<double>(), x.max().item<double>(), activationRange(reduce_range));
}

class Int8Reference : public InferenceModel {
 public:
  explicit Int8Reference(const ModelArtifact& artifact) : m_inputShape(artifact.input_shape) {
    if (!artifact.isQuantized()) {
      throw UserError("artifact " + artifact.name + " is not int8, so it has no int8 simulation",
                      "Simulate the artifact a quantize pass made.");
    }
    const nlohmann::json& q = artifact.quantization;
    m_static = fromWord<QuantizeMode>(q.value("mode", std::string())) != QuantizeMode::Dynamic;
    m_reduceRange = q.value("reduce_range", false);
    m_plan = planQuantization(artifactLayers(artifact), m_inputShape,
                              m_static ? QuantizeMode::Static : QuantizeMode::Dynamic);
    readPlanJson(m_plan, q.at("layers"), m_static);
    if (m_static)
      m_input = {q.at("input").at("scale").get<double>(), q.at("input").at("zero_point").get<int64_t>()};
    prepare(m_plan, artifact);
  }

  torch::Tensor forward(const torch::Tensor& input) override {
    torch::NoGradGuard no_grad;
    Point point{m_input, false};
    return runList(m_plan, input.to(torch::kCPU, torch::kFloat64), point).to(torch::kFloat32);
  }

 private:
  struct Weights {
    torch::Tensor weight, bias;  // float64: the int8 values times their scales; the float bias
  };

  void prepare(std::vector<QNode>& nodes, const ModelArtifact& artifact) {
    for (QNode& n : nodes) {
      if (n.kernel == QKernel::Residual) {
        prepare(n.body, artifact);
        prepare(n.shortcut, artifact);
      } else if (n.kernel == QKernel::Int8 || n.kernel == QKernel::Int8Dynamic) {
        const torch::Tensor values = quantizedTensor(artifact, n.name + ".weight", true).to(torch::kFloat64);
        const torch::Tensor scales =
            quantizedTensor(artifact, n.name + ".weight.scale", true).to(torch::kFloat64);
        const torch::Tensor zeros =
            quantizedTensor(artifact, n.name + ".weight.zero_point", true).to(torch::kFloat64);
        std::vector<int64_t> per_channel(static_cast<size_t>(values.dim()), 1);
        per_channel[0] = -1;
        Weights w;
        w.weight = (values - zeros.view(per_channel)) * scales.view(per_channel);
        const torch::Tensor b = quantizedTensor(artifact, n.name + ".bias", false);
        if (b.defined()) w.bias = b.to(torch::kFloat64);
        m_weights[n.name] = w;
      } else if (n.kernel == QKernel::Float || n.kernel == QKernel::Passthrough) {
        n.module = floatModule(n, artifact);
        n.module.ptr()->to(torch::kFloat64);
      }
    }
  }

  torch::Tensor affine(const QNode& n, const torch::Tensor& x) const {
    const Weights& w = m_weights.at(n.name);
    if (n.layer->type() == "conv2d") {
      const auto& c = static_cast<const Conv2dLayer&>(*n.layer);
      return torch::conv2d(x, w.weight, w.bias, {c.stride().h, c.stride().w}, {c.padding().h, c.padding().w},
                           {1, 1}, c.groups());
    }
    return torch::linear(x, w.weight, w.bias);
  }

  // QuantizedNet::runList with every quint8 tensor a float64 tensor on its grid.
  torch::Tensor runList(std::vector<QNode>& nodes, torch::Tensor x, Point& point) {
    for (QNode& n : nodes) {
      switch (n.kernel) {
        case QKernel::Int8:
          x = affine(n, point.on_grid ? x : onGrid(x, point.q));
          if (n.relu) x = torch::relu(x);
          x = onGrid(x, n.output);
          point = {n.output, true};
          break;
        case QKernel::Int8Dynamic: {
          x = affine(n, onGrid(x, dynamicQParams(x, m_reduceRange)));
          if (n.relu) x = torch::relu(x);
          break;
        }
        case QKernel::Residual: {
          Point body_point = point;
          Point shortcut_point = point;
          torch::Tensor body = runList(n.body, x, body_point);
          torch::Tensor shortcut = n.shortcut.empty() ? x : runList(n.shortcut, x, shortcut_point);
          if (m_static) {
            if (!body_point.on_grid) body = onGrid(body, body_point.q);
            if (!shortcut_point.on_grid) shortcut = onGrid(shortcut, shortcut_point.q);
          }
          x = body + shortcut;
          if (n.relu) x = torch::relu(x);
          if (m_static) {
            x = onGrid(x, n.output);
            point = {n.output, true};
          }
          break;
        }
        case QKernel::Fused:
          break;
        case QKernel::Passthrough: {
          const std::string type = n.layer->type();
          x = n.module.forward(x);
          // LibTorch's quantized average pools round their means back onto the input's grid.
          if (m_static && point.on_grid && (type == "avgpool2d" || type == "adaptive_avgpool2d")) {
            x = onGrid(x, point.q);
          }
          break;
        }
        case QKernel::Float:
          x = n.module.forward(x);
          point = {n.output, false};
          break;
      }
    }
    return x;
  }

  Shape m_inputShape;
  bool m_static = true;
  bool m_reduceRange = false;
  QParams m_input;
  std::vector<QNode> m_plan;
  std::map<std::string, Weights> m_weights;
};

}  // namespace

std::unique_ptr<InferenceModel> makeInt8ReferenceModel(const ModelArtifact& artifact) {
  try {
    return std::make_unique<Int8Reference>(artifact);
  } catch (const UserError&) {
    throw;
  } catch (const std::exception& e) {  // the record's JSON (nlohmann) or its shape (readPlanJson)
    throw UserError("int8 artifact " + artifact.name + ": its quantization record does not fit its layers (" +
                        e.what() + ")",
                    "Run the quantize pass again.");
  }
}

}  // namespace wb
